// The one place that talks to Anthropic: builds the request (cached system and shared prefix,
// redacted and framed material, structured output), retries only 429/529 a bounded number of
// times, honours cancellation and budget, and returns a completed evaluation or a gap.
import Anthropic, { APIConnectionTimeoutError, APIError, APIUserAbortError } from '@anthropic-ai/sdk';
import type { Logger } from 'pino';
import { countModelCall } from '../metrics.ts';
import { formatCallHeader } from './call-header.ts';
import { checkCompletion, DEFAULT_MAX_TEXT_BYTES, isRetryableStatus } from './integrity.ts';
import { boundTextWithFlag, frameUntrusted, isFramed, redactSecrets } from './redact.ts';
import type { CompletionRequest, CompletionResult, GapReason, LlmClient } from './types.ts';

export interface AnthropicClientOptions {
  /** Undefined: read `ANTHROPIC_API_KEY`. Empty or absent: every call is the gap `model-error`. */
  apiKey?: string;
  /** Undefined: the SDK reads `ANTHROPIC_BASE_URL`, else the public API. */
  baseURL?: string;
  log?: Logger;
  /** Further attempts after a 429 or 529 (default 2). */
  maxRetries429?: number;
  /** First backoff between attempts, doubled each time (default 200 ms). */
  retryBaseMs?: number;
  /** Cap on any wait between attempts, `retry-after` included (default 4 s). */
  maxRetryDelayMs?: number;
  /** Bound on the answer text (default 64 KB). */
  maxTextBytes?: number;
  /** Bound on the material sent (default 512 KB); callers bound it tighter already. */
  maxMaterialBytes?: number;
}

const DEFAULT_MAX_TOKENS = 4096;

/** Wait `ms`, resolving early (false) when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Delay before the next attempt: `retry-after(-ms)` when the service gives one, else exponential. */
function retryDelayMs(err: APIError, attempt: number, baseMs: number, capMs: number): number {
  const headers = err.headers instanceof Headers ? err.headers : null;
  const ms = Number(headers?.get('retry-after-ms') ?? NaN);
  const secs = Number(headers?.get('retry-after') ?? NaN);
  const given = Number.isFinite(ms) && ms >= 0 ? ms : Number.isFinite(secs) && secs >= 0 ? secs * 1000 : null;
  return Math.min(capMs, given ?? baseMs * 2 ** attempt);
}

/** Builds the Messages API body. Exported for tests of the request shape. */
export function buildMessageParams(
  req: CompletionRequest,
  maxMaterialBytes: number,
): Anthropic.MessageCreateParamsNonStreaming {
  const prefix = redactSecrets(req.sharedPrefix).text;
  // Bound before framing, so a cut never drops the closing delimiter; a cut caller frame is framed again.
  const bounded = boundTextWithFlag(redactSecrets(req.material).text, maxMaterialBytes);
  const framed =
    isFramed(bounded.text) && !bounded.truncated ? bounded.text : frameUntrusted(`${req.kind} material`, bounded.text);
  return {
    model: req.model,
    max_tokens: req.maxTokens ?? DEFAULT_MAX_TOKENS,
    system: [{ type: 'text', text: redactSecrets(req.system).text, cache_control: { type: 'ephemeral' } }],
    messages: [
      {
        role: 'user',
        content: [
          // The shared prefix (instructions' criteria) is identical for every sibling, so it is
          // cached; the call header names the candidate and therefore goes after it.
          { type: 'text', text: prefix, cache_control: { type: 'ephemeral' } },
          { type: 'text', text: `${formatCallHeader(req)}\n${framed}` },
        ],
      },
    ],
    output_config: { format: { type: 'json_schema', schema: req.schema } },
  };
}

export function createAnthropicClient(opts: AnthropicClientOptions = {}): LlmClient {
  const apiKey = opts.apiKey !== undefined ? opts.apiKey : process.env['ANTHROPIC_API_KEY'];
  const log = opts.log;
  const maxRetries = Math.max(0, opts.maxRetries429 ?? 2);
  const retryBaseMs = opts.retryBaseMs ?? 200;
  const maxRetryDelayMs = opts.maxRetryDelayMs ?? 4000;
  const maxTextBytes = opts.maxTextBytes ?? DEFAULT_MAX_TEXT_BYTES;
  const maxMaterialBytes = opts.maxMaterialBytes ?? 512 * 1024;

  if (apiKey === undefined || apiKey === '') {
    let warned = false;
    return {
      async complete(req): Promise<CompletionResult> {
        countModelCall(req.tier, 'model-error');
        if (!warned) log?.warn('no Anthropic API key configured: model calls are reported as gaps');
        warned = true;
        return { ok: false, gap: 'model-error' };
      },
    };
  }

  const sdk = new Anthropic({ apiKey, baseURL: opts.baseURL, maxRetries: 0 });

  async function complete(req: CompletionRequest): Promise<CompletionResult> {
    // Tokens the API reported for this call (an answer that became a gap still cost them).
    let usage: { input: number; output: number } | undefined;
    const done = (gap: GapReason): CompletionResult => {
      countModelCall(req.tier, gap, usage);
      log?.info(
        { kind: req.kind, tier: req.tier, candidate: req.candidate, candidates: req.candidates, gap },
        'model call gap',
      );
      return { ok: false, gap };
    };
    if (req.signal?.aborted) return done('aborted');
    if (req.takeBudget !== undefined && !(await req.takeBudget())) return done('budget');
    if (req.signal?.aborted) return done('aborted');

    const params = buildMessageParams(req, maxMaterialBytes);
    // One deadline for the whole call, retries included; the caller's signal aborts it too.
    const ctl = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      ctl.abort();
    }, req.timeoutMs);
    const onAbort = (): void => ctl.abort();
    req.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      for (let attempt = 0; ; attempt += 1) {
        try {
          const message = await sdk.messages.create(params, { signal: ctl.signal, timeout: req.timeoutMs });
          usage = { input: message.usage?.input_tokens ?? 0, output: message.usage?.output_tokens ?? 0 };
          if (req.signal?.aborted) return done('aborted'); // a late answer after cancellation is discarded
          const result = checkCompletion(message, maxTextBytes);
          if (!result.ok) return done(result.gap);
          countModelCall(req.tier, 'ok', usage);
          return result;
        } catch (err) {
          if (req.signal?.aborted) return done('aborted');
          if (timedOut || err instanceof APIConnectionTimeoutError) return done('timeout');
          if (err instanceof APIUserAbortError) return done('aborted');
          const status = err instanceof APIError ? err.status : undefined;
          // Provider text stays in debug logs; the result carries only the gap.
          log?.debug({ status, err: err instanceof Error ? err.message : String(err) }, 'model call failed');
          if (!(err instanceof APIError) || !isRetryableStatus(status)) return done('model-error');
          if (attempt >= maxRetries) return done('rate-limited');
          const slept = await sleep(retryDelayMs(err, attempt, retryBaseMs, maxRetryDelayMs), ctl.signal);
          if (!slept) return done(req.signal?.aborted ? 'aborted' : 'timeout');
        }
      }
    } finally {
      clearTimeout(timer);
      req.signal?.removeEventListener('abort', onAbort);
    }
  }

  return { complete };
}
