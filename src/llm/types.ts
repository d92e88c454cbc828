// The contract of the one module that talks to Anthropic, and the shapes of the structured
// outputs Arbiter asks for. Acceptance and the judge build requests; src/llm/client.ts sends
// them and applies completion integrity; sim/anthropic answers them from scenario scripts.
import { z } from 'zod';

export type Tier = 'small' | 'large';
export type CallKind = 'acceptance' | 'judge';

/**
 * The user content is two blocks: the shared prefix (cached across siblings), then the
 * material, which starts with one header line so the fake endpoint (and a person reading a
 * log) can tell calls apart without parsing prose:
 *   `[arbiter-call] kind=acceptance candidate=12`   (acceptance of PR #12)
 *   `[arbiter-call] kind=acceptance candidate=7 set=good`   (of set `good`, first member #7)
 *   `[arbiter-call] kind=judge candidates=12,13 mode=verdict`
 */
export const CALL_HEADER_PREFIX = '[arbiter-call]';

export interface CompletionRequest {
  tier: Tier;
  /** Model id for this tier, from the repository's config. */
  model: string;
  timeoutMs: number;
  kind: CallKind;
  /** Acceptance: the candidate PR (of a candidate set: its first member). */
  candidate?: number;
  /** Acceptance of a candidate set: its name (the call header says `set=<name>`). */
  set?: string;
  /** Judge: the tied candidates and the mode. */
  candidates?: number[];
  mode?: 'verdict' | 'rubric';
  /** Instructions (system prompt). Cached. */
  system: string;
  /** Shared prefix across siblings (criteria), sent with cache_control. */
  sharedPrefix: string;
  /** Untrusted material (patch, files, evidence), already bounded; the client redacts it again. */
  material: string;
  /** JSON Schema of the structured output. */
  schema: Record<string, unknown>;
  maxTokens?: number;
  signal?: AbortSignal;
  /**
   * Asked once before the call is sent: false means the per-Change budget or the
   * installation's daily cap is exhausted, and the result is the gap `budget`.
   */
  takeBudget?: () => Promise<boolean>;
}

export type { GapReason } from '../core/types.ts';
import type { GapReason } from '../core/types.ts';

export type CompletionResult =
  | { ok: true; text: string; json: unknown; model: string; usage: { input: number; output: number } }
  | { ok: false; gap: GapReason };

export interface LlmClient {
  complete(req: CompletionRequest): Promise<CompletionResult>;
}

export { GAP_WORDING } from '../core/render/gap-wording.ts';

/** Structured output of an acceptance call. */
export const AcceptanceOutput = z.object({
  criteria: z.array(
    z.object({
      id: z.string(),
      status: z.enum(['met', 'not_met', 'unclear', 'uncheckable']),
      path: z.string().nullable().optional(),
      quote: z.string().nullable().optional(),
      /**
       * The model's classification: the criterion asks for something to go away, so a removed
       * patch line may cite it. Counts only when the criterion's text also asks for a removal.
       */
      removal: z.boolean().default(false),
      reason: z.string().max(2000).default(''),
    }),
  ),
});
export type AcceptanceOutput = z.infer<typeof AcceptanceOutput>;

/** Structured output of a verdict-mode judge call. */
export const VerdictOutput = z.object({
  verdict: z.enum(['prefer_candidate', 'reject_candidate', 'needs_more_evidence', 'escalate_to_human']),
  candidate: z.number().int().nullable(),
  evidence: z.array(z.string()),
  reason: z.string().max(2000),
});
export type VerdictOutput = z.infer<typeof VerdictOutput>;

/** Structured output of a rubric-mode judge call: one cell per candidate × criterion. */
export const RubricOutput = z.object({
  scores: z.array(z.object({ candidate: z.number().int(), criterion: z.string(), score: z.number() })),
  reason: z.string().max(2000).default(''),
});
export type RubricOutput = z.infer<typeof RubricOutput>;
