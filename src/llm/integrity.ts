// Completion integrity: decides whether a Messages API answer is a completed evaluation, and
// maps SDK errors to gap reasons. Pure; the client calls it. Provider text never leaves here
// except the answer text of a completed evaluation.
import { z } from 'zod';
import type { CompletionResult, GapReason } from './types.ts';

/** Default bound on the answer text: a structured answer longer than this is not trusted. */
export const DEFAULT_MAX_TEXT_BYTES = 64 * 1024;

/** Only the parts of a Message we rely on; everything else is ignored. */
const MessageShape = z.object({
  model: z.string().default(''),
  stop_reason: z.string().nullable(),
  content: z.array(z.looseObject({ type: z.string(), text: z.string().optional() })),
  usage: z
    .looseObject({ input_tokens: z.number().default(0), output_tokens: z.number().default(0) })
    .default({ input_tokens: 0, output_tokens: 0 }),
});

/** Every stop reason other than a normal end is a gap; unknown ones are a model error. */
const STOP_REASON_GAPS: Record<string, GapReason | null> = {
  end_turn: null,
  max_tokens: 'max-tokens',
  model_context_window_exceeded: 'max-tokens',
  refusal: 'refusal',
  tool_use: 'tool-use',
  pause_turn: 'tool-use',
  // Arbiter sets no stop sequences, so stopping on one means the answer is not what we asked for.
  stop_sequence: 'model-error',
};

const gap = (reason: GapReason): CompletionResult => ({ ok: false, gap: reason });

/** Checks one Messages API answer (as returned by the SDK, validated here). */
export function checkCompletion(message: unknown, maxTextBytes: number = DEFAULT_MAX_TEXT_BYTES): CompletionResult {
  const parsed = MessageShape.safeParse(message);
  if (!parsed.success) return gap('model-error');
  const m = parsed.data;
  // Any tool call (client or server tool) means the model did not simply answer.
  if (m.content.some((b) => b.type.endsWith('tool_use'))) return gap('tool-use');
  const stopGap =
    m.stop_reason !== null && Object.hasOwn(STOP_REASON_GAPS, m.stop_reason)
      ? STOP_REASON_GAPS[m.stop_reason]
      : 'model-error';
  if (stopGap !== null) return gap(stopGap);
  const texts = m.content.filter((b) => b.type === 'text').map((b) => b.text ?? '');
  const text = texts.join('');
  if (texts.length === 0 || text.trim() === '') return gap('empty');
  if (Buffer.byteLength(text, 'utf8') > maxTextBytes) return gap('too-long');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return gap('invalid-output');
  }
  return {
    ok: true,
    text,
    json,
    model: m.model,
    usage: { input: m.usage.input_tokens, output: m.usage.output_tokens },
  };
}

/** Statuses worth another attempt: rate limited (429) and overloaded (529). */
export const isRetryableStatus = (status: number | undefined): boolean => status === 429 || status === 529;
