// Scenario scripts for the fake Anthropic endpoint and the pure functions that turn a script
// into the structured answer Arbiter asks for (AcceptanceOutput, VerdictOutput, RubricOutput).
import type { AcceptanceOutput, RubricOutput } from '../../src/llm/types.ts';

export interface CriterionScript {
  status: 'met' | 'not_met' | 'unclear' | 'uncheckable';
  path?: string;
  quote?: string;
  /** The model classifies the criterion as a removal (default false). */
  removal?: boolean;
  reason?: string;
}

export interface JudgeScript {
  /** Free text on purpose: a scenario may script an invalid verdict. */
  verdict?: string;
  candidate?: number | null;
  evidence?: string[];
  reason?: string;
  /** Rubric mode: `{ "12": { completeness: 3 } }`, one cell per candidate × rubric id. */
  scores?: Record<string, Record<string, number>>;
  /** The answer to the reversed-order call (candidates listed last first); without it, both calls answer the same. */
  swapped?: Omit<JudgeScript, 'swapped'>;
}

export interface ModelScripts {
  /** Keyed by PR number, then tier, then criterion id (`AC1`). */
  candidates: Record<number, { small?: Record<string, CriterionScript>; large?: Record<string, CriterionScript> }>;
  judge?: JudgeScript;
}

export interface ModelFault {
  tier?: 'small' | 'large';
  kind?: 'acceptance' | 'judge';
  /** Answer with Anthropic's error JSON and this HTTP status (e.g. 529, 500). */
  status?: number;
  stop_reason?: 'max_tokens' | 'refusal' | 'tool_use' | 'pause_turn';
  /** Replace the answer text, e.g. "" or "not json". */
  text?: string;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Extra response headers, e.g. `{ "retry-after": "1" }` on a 429. */
  headers?: Record<string, string>;
  /** How many matching calls this fault applies to; default every one. */
  times?: number;
}

/**
 * Criterion ids are read from the FIRST text block of the user content (the call header and
 * the shared prefix), never from the material block, so text in a PR cannot add criteria.
 * Rule: every line that starts (after optional spaces, `-` or `*`) with `ACn:` names criterion
 * `ACn`; ids are kept in order of first appearance.
 */
export function criterionIdsFromPrefix(prefix: string): string[] {
  const ids: string[] = [];
  for (const m of prefix.matchAll(/^[ \t]*(?:[-*][ \t]+)?(AC\d+)[ \t]*:/gm)) {
    const id = m[1];
    if (id !== undefined && !ids.includes(id)) ids.push(id);
  }
  return ids;
}

/** The acceptance answer for the requested criteria; criteria the script omits are `unclear`. */
export function acceptanceAnswer(ids: string[], script: Record<string, CriterionScript>): AcceptanceOutput {
  const wanted = ids.length > 0 ? ids : Object.keys(script);
  return {
    criteria: wanted.map((id) => {
      const s = script[id];
      if (s === undefined)
        return { id, status: 'unclear', path: null, quote: null, removal: false, reason: 'not scripted' };
      return {
        id,
        status: s.status,
        path: s.path ?? null,
        quote: s.quote ?? null,
        removal: s.removal ?? false,
        reason: s.reason ?? '',
      };
    }),
  };
}

/**
 * The script for one judge call: `swapped` answers the reversed-order call, the call whose
 * header lists the tied candidates in descending order; every other call gets the script itself.
 */
export function judgeScriptFor(script: JudgeScript, candidates: number[]): JudgeScript {
  const reversed = candidates.length > 1 && candidates.every((n, i) => i === 0 || candidates[i - 1]! > n);
  return reversed && script.swapped !== undefined ? script.swapped : script;
}

/** Verdict-mode answer. Unset fields get neutral defaults; nothing is validated here on purpose. */
export function verdictAnswer(script: JudgeScript): Record<string, unknown> {
  return {
    verdict: script.verdict ?? 'escalate_to_human',
    candidate: script.candidate ?? null,
    evidence: script.evidence ?? [],
    reason: script.reason ?? '',
  };
}

/** Rubric-mode answer: one cell per scripted score, exactly as scripted (a bad matrix stays bad). */
export function rubricAnswer(script: JudgeScript): RubricOutput {
  const scores: RubricOutput['scores'] = [];
  for (const [candidate, row] of Object.entries(script.scores ?? {})) {
    for (const [criterion, score] of Object.entries(row))
      scores.push({ candidate: Number(candidate), criterion, score });
  }
  return { scores, reason: script.reason ?? '' };
}

/** Anthropic's error `type` for an HTTP status. */
export const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};
