// The risk policy: config rules (paths, size, labels) give a candidate its risk, and the
// policy says whether that risk may ship without a person. Pure.
import picomatch from 'picomatch';
import type { CandidateEvidence, Risk, RiskPolicy } from './types.ts';

const ORDER: Record<Risk, number> = { low: 0, medium: 1, high: 2 };

/** The higher of two risks. */
export const higherRisk = (a: Risk, b: Risk): Risk => (ORDER[b] > ORDER[a] ? b : a);

export interface RiskAssessment {
  risk: Risk;
  /** Why: one entry per rule that raised the risk. */
  reasons: string[];
  mayShip: boolean;
}

/**
 * The candidate's risk under `policy`. `pathText` names a changed path in the reasons (a set's member
 * names its repository too: `acme/ui: .github/workflows/ci.yml`); the rules match the path itself.
 */
export function assessRisk(
  policy: RiskPolicy,
  candidate: Pick<CandidateEvidence, 'changedPaths' | 'changedLines' | 'labels'>,
  pathText: (path: string) => string = (path) => path,
): RiskAssessment {
  let risk: Risk = 'low';
  const reasons: string[] = [];
  for (const rule of policy.rules) {
    const why: string[] = [];
    if (rule.paths) {
      const hits = candidate.changedPaths.filter((p) => picomatch.isMatch(p, rule.paths!, { dot: true }));
      if (hits.length > 0)
        why.push(
          `changes ${hits
            .slice(0, 3)
            .map((p) => `\`${pathText(p)}\``)
            .join(', ')}${hits.length > 3 ? ` and ${hits.length - 3} more` : ''}`,
        );
    }
    if (rule.minChangedLines !== undefined && candidate.changedLines > rule.minChangedLines) {
      why.push(`${candidate.changedLines} changed lines (over ${rule.minChangedLines})`);
    }
    if (rule.minChangedFiles !== undefined && candidate.changedPaths.length > rule.minChangedFiles) {
      why.push(`${candidate.changedPaths.length} changed files (over ${rule.minChangedFiles})`);
    }
    if (rule.labels) {
      const hits = candidate.labels.filter((l) => rule.labels!.includes(l));
      if (hits.length > 0) why.push(`label ${hits.map((l) => `\`${l}\``).join(', ')}`);
    }
    if (why.length === 0) continue;
    reasons.push(`${rule.risk}: ${why.join('; ')}`);
    risk = higherRisk(risk, rule.risk);
  }
  return { risk, reasons, mayShip: policy.autoShip.includes(risk) };
}
