// Builds a benchmark Change programmatically: N sibling candidates, each meeting every criterion
// with a verifiable quote, ranked apart by a scoring check so exactly one expected winner
// ships without a tie or a person. Pure data, in the scenario file format (DESIGN.md §9).
import { parseScenario, type Scenario } from '../sim/scenario-schema.ts';

// The scoring check is required too: a non-required scoring check is not waited for, so a
// sibling whose score arrives after its `test` could be ranked without it (see docs/PERFORMANCE.md).
// The model budget fits a group of 100 (the default of 40 calls per Change would leave the later
// siblings' criteria as gaps, and the group would go to a person, as it should, instead of shipping).
export const BENCH_CONFIG =
  'gate:\n  required: [test, bench]\n  score: bench\nacceptance:\n  budget:\n    perChange: 400\n';

export const CHANGE_BODY = [
  'Add a greeting feature to the app.',
  '',
  '## Acceptance criteria',
  '- [ ] The module exports a greeting function',
  '- [ ] The greeting names the attempt that wrote it',
  '',
].join('\n');

export const BASE_FILES: Record<string, string> = {
  'src/app.ts': '// Entry point of the benchmark app.\nexport const app = "bench";\n',
  'package.json': '{ "name": "bench-app", "private": true }\n',
};

export interface GroupPlan {
  change: number;
  /** PR numbers of the siblings, in opening order. */
  candidates: number[];
  /** The sibling with the highest score: the one that must ship. */
  winner: number;
}

/** The file a Change's candidates write: Changes never touch the same file, so none conflicts. */
export const featurePath = (change: number): string => `src/greeting-${change}.ts`;

/** Files of one candidate: each line quoted by its scripted answers occurs verbatim. */
export function candidateFiles(change: number, pr: number): Record<string, string> {
  return {
    [featurePath(change)]: [
      `// Greeting written by attempt ${pr}.`,
      `export function greet(name: string): string {`,
      `  return \`Hello \${name}, from attempt number ${pr} of the benchmark\`;`,
      `}`,
      '',
    ].join('\n'),
  };
}

export function candidateModel(change: number, pr: number) {
  return {
    small: {
      AC1: {
        status: 'met' as const,
        path: featurePath(change),
        quote: 'export function greet(name: string): string {',
      },
      AC2: {
        status: 'met' as const,
        path: featurePath(change),
        quote: `return \`Hello \${name}, from attempt number ${pr} of the benchmark\`;`,
      },
    },
  };
}

/**
 * The winner scores highest; it sits in the middle of the opening order and is never the last
 * to settle (nor, from three siblings on, the first to open), so arrival order cannot pick it.
 */
export function planGroup(change: number, size: number): GroupPlan {
  const candidates = Array.from({ length: size }, (_, i) => change + 1 + i);
  return { change, candidates, winner: candidates[Math.floor((size - 1) / 2)] };
}

export const scoreOf = (plan: GroupPlan, pr: number): number => (pr === plan.winner ? 1000 : pr - plan.change);

/**
 * One scenario: every sibling opens at 0; every CI result lands at `settleAt`, except the last
 * sibling's, which lands at `lastAt`: that sibling settles last and runs the selection step.
 */
export function groupScenario(
  size: number,
  opts: { settleAt: number; lastAt: number },
): { scenario: Scenario; plan: GroupPlan } {
  const plan = planGroup(1, size);
  const last = plan.candidates[plan.candidates.length - 1];
  const doc = {
    name: `${size} siblings, one expected winner (#${plan.winner})`,
    repo: `bench/group-${size}`,
    files: BASE_FILES,
    config: BENCH_CONFIG,
    change: { number: plan.change, title: `Greeting (${size} siblings)`, body: CHANGE_BODY },
    candidates: plan.candidates.map((pr) => {
      const at = pr === last ? opts.lastAt : opts.settleAt;
      return {
        number: pr,
        branch: `agent/attempt-${pr}`,
        title: `Attempt ${pr}`,
        openAt: 0,
        files: candidateFiles(plan.change, pr),
        checks: [
          { name: 'test', conclusion: 'success', at },
          { name: 'bench', conclusion: 'success', at, output: { title: `score: ${scoreOf(plan, pr)}` } },
        ],
        model: candidateModel(plan.change, pr),
      };
    }),
  };
  const parsed = parseScenario(doc);
  if (!parsed.ok) throw new Error(`the benchmark scenario is invalid:\n${parsed.errors.join('\n')}`);
  return { scenario: parsed.scenario, plan };
}
