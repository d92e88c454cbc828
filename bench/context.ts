// Benchmark 3, acceptance context: each case in its own process (so its peak RSS is its own):
// PRs of 10, 1,000 and 10,000 changed files and one 50 MB file, and 100 citations verified
// over the ~60 KB material of a small PR.
import { z } from 'zod';
import { runChild } from './child.ts';

export const CONTEXT_CASES = ['files-10', 'files-1000', 'files-10000', 'one-50mb'] as const;

const ContextCase = z.object({
  case: z.string(),
  files: z.number(),
  diffMb: z.number(),
  fetchPatchMs: z.number(),
  selectMs: z.number(),
  buildMs: z.number(),
  contextMs: z.number(),
  parseFullDiffMs: z.number(),
  patchStoredMb: z.number(),
  patchTruncated: z.boolean(),
  materialBytes: z.number(),
  sentFiles: z.number(),
  contextTruncated: z.boolean(),
  inputRssMb: z.number(),
  contextRssMb: z.number(),
  peakRssMb: z.number(),
  heapUsedMb: z.number(),
});
export type ContextCase = z.infer<typeof ContextCase>;

const CitationsCase = z.object({
  case: z.literal('citations'),
  materialBytes: z.number(),
  citations: z.number(),
  verified: z.number(),
  verifiedCold: z.number(),
  totalMs: z.number(),
  coldTotalMs: z.number(),
  peakRssMb: z.number(),
});
export type CitationsCase = z.infer<typeof CitationsCase>;

export interface ContextResult {
  cases: ContextCase[];
  citations: CitationsCase;
}

export async function benchContext(say: (line: string) => void): Promise<ContextResult> {
  const cases: ContextCase[] = [];
  for (const name of CONTEXT_CASES) {
    say(`context: ${name}`);
    cases.push(ContextCase.parse(await runChild('context-case.ts', [name], {}, 180_000)));
  }
  say('context: 100 citations');
  const citations = CitationsCase.parse(await runChild('context-case.ts', ['citations'], {}, 120_000));
  return { cases, citations };
}
