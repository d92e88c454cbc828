// How a gap is said to a person: a gap carries a machine code (GapReason), and the words are
// chosen here, where Arbiter renders; decisions compare codes, never these words.
import type { GapReason } from '../types.ts';

export const GAP_WORDING: Record<GapReason, string> = {
  'model-error': 'the model service failed',
  'rate-limited': 'the model service was overloaded',
  refusal: 'the model refused',
  'max-tokens': 'the answer was cut at the token limit',
  'tool-use': 'the model tried to call a tool',
  empty: 'the model returned no text',
  'too-long': 'the answer was too long',
  aborted: 'the call was cancelled',
  timeout: 'the model did not answer in time',
  budget: 'the model budget is exhausted',
  'invalid-output': 'the answer was not valid',
};
