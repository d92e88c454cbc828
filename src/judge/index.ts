// Public entry of the tie-break judge: judgeTie, diagnose and the evidence snapshot.
export { judgeTie, safeExplanation, MAX_EXPLANATION_CHARS, type JudgeTieInput } from './judge.ts';
export { diagnose } from './diagnostics.ts';
export { buildEvidenceSnapshot, type EvidenceItem, type EvidenceSnapshot, type SnapshotOptions } from './snapshot.ts';
export { rankByMatrix, validateMatrix, type Cell, type Matrix } from './rubric.ts';
