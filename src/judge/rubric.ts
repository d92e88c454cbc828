// Rubric mode, pure: validates the judge's score matrix (exactly the tied candidates × the
// rubric ids, integers 0–4, one cell each) and ranks by weighted sum with a deterministic fallback.
import type { ArbiterConfig } from '../config/schema.ts';
import type { JudgeOutcome } from '../core/types.ts';

type Rubric = ArbiterConfig['judge']['rubric'];

export interface Cell {
  candidate: number;
  criterion: string;
  score: number;
}

/** candidate → criterion → score; null when the matrix is not exactly complete and valid. */
export type Matrix = Map<number, Map<string, number>>;

export function validateMatrix(cells: Cell[], tied: number[], rubric: Rubric): Matrix | null {
  const ids = new Set(rubric.map((r) => r.id));
  const matrix: Matrix = new Map(tied.map((pr) => [pr, new Map<string, number>()]));
  for (const cell of cells) {
    const row = matrix.get(cell.candidate);
    if (row === undefined || !ids.has(cell.criterion)) return null; // unknown candidate or criterion
    if (!Number.isInteger(cell.score) || cell.score < 0 || cell.score > 4) return null;
    if (row.has(cell.criterion)) return null; // a duplicate cell, even with the same score
    row.set(cell.criterion, cell.score);
  }
  for (const row of matrix.values()) if (row.size !== ids.size) return null; // a missing cell
  return matrix;
}

/** The cell-by-cell mean of two complete matrices over the same candidates and criteria. */
export function averageMatrices(a: Matrix, b: Matrix): Matrix {
  const out: Matrix = new Map();
  for (const [pr, row] of a) {
    const other = b.get(pr);
    out.set(pr, new Map([...row].map(([id, score]) => [id, (score + (other?.get(id) ?? score)) / 2])));
  }
  return out;
}

/** Rounded so equal score vectors (or sums equal up to float noise) compare equal. */
const round = (n: number): number => Math.round(n * 1e9) / 1e9;

export interface MatrixRanking {
  winner: number;
  reason: 'judge-ranked' | 'judge-tied';
  source: 'llm-judge' | 'deterministic';
  totals: Map<number, number>;
  ranking: NonNullable<JudgeOutcome['ranking']>;
}

/**
 * Highest weighted sum wins (weights from config only). A tie inside the top group goes to the
 * candidate of that group that ranks first in `deterministicOrder` (best first); candidates the
 * order does not name come after, by PR number. Never a candidate outside the top group.
 */
export function rankByMatrix(matrix: Matrix, rubric: Rubric, deterministicOrder: number[]): MatrixRanking {
  const totals = new Map<number, number>();
  for (const [pr, row] of matrix) {
    // Summed in rubric order, so the result never depends on the order of the cells.
    totals.set(pr, round(rubric.reduce((sum, r) => sum + r.weight * (row.get(r.id) ?? 0), 0)));
  }
  const distinct = [...new Set(totals.values())].sort((a, b) => b - a);
  const top = distinct[0] ?? 0;
  const group = [...totals].filter(([, t]) => t === top).map(([pr]) => pr);
  const position = (pr: number): number => {
    const i = deterministicOrder.indexOf(pr);
    return i === -1 ? deterministicOrder.length + pr : i;
  };
  const ordered = [...group].sort((a, b) => position(a) - position(b) || a - b);
  const winner = ordered[0]!;
  const tied = group.length > 1;
  return {
    winner,
    reason: tied ? 'judge-tied' : 'judge-ranked',
    source: tied ? 'deterministic' : 'llm-judge',
    totals,
    ranking: {
      distinctScores: distinct.length,
      topScoreTieCount: group.length,
      scoreMargin: tied || distinct.length < 2 ? 0 : round(top - distinct[1]!),
    },
  };
}
