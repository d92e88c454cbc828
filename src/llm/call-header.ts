// The one-line call header that opens every request's user content, written by the client and
// read by the fake endpoint (and by a person reading logs): `[arbiter-call] kind=judge candidates=12,13 mode=verdict`.
import { CALL_HEADER_PREFIX, type CallKind, type CompletionRequest } from './types.ts';

export interface CallHeader {
  kind: CallKind;
  /** Acceptance: the candidate PR. */
  candidate: number | null;
  /** Judge: the tied candidates. */
  candidates: number[];
  mode: 'verdict' | 'rubric' | null;
}

export function formatCallHeader(
  req: Pick<CompletionRequest, 'kind' | 'candidate' | 'candidates' | 'mode' | 'set'>,
): string {
  const parts = [CALL_HEADER_PREFIX, `kind=${req.kind}`];
  if (req.candidate !== undefined) parts.push(`candidate=${req.candidate}`);
  if (req.set !== undefined) parts.push(`set=${req.set}`);
  if (req.candidates !== undefined && req.candidates.length > 0) parts.push(`candidates=${req.candidates.join(',')}`);
  if (req.mode !== undefined) parts.push(`mode=${req.mode}`);
  return parts.join(' ');
}

const KINDS: Record<string, CallKind> = { acceptance: 'acceptance', judge: 'judge' };
const MODES: Record<string, 'verdict' | 'rubric'> = { verdict: 'verdict', rubric: 'rubric' };

const toPr = (s: string): number | null => (/^\d{1,9}$/.test(s) ? Number(s) : null);

/** Parses the first line of `text`; null when it is not a call header. */
export function parseCallHeader(text: string): CallHeader | null {
  const line = text.split('\n', 1)[0]?.trim() ?? '';
  if (!line.startsWith(`${CALL_HEADER_PREFIX} `)) return null;
  const fields = new Map<string, string>();
  for (const token of line.slice(CALL_HEADER_PREFIX.length).trim().split(/\s+/)) {
    const eq = token.indexOf('=');
    if (eq > 0) fields.set(token.slice(0, eq), token.slice(eq + 1));
  }
  const kind = KINDS[fields.get('kind') ?? ''];
  if (kind === undefined) return null;
  const candidates = (fields.get('candidates') ?? '')
    .split(',')
    .map(toPr)
    .filter((n): n is number => n !== null);
  return {
    kind,
    candidate: toPr(fields.get('candidate') ?? ''),
    candidates,
    mode: MODES[fields.get('mode') ?? ''] ?? null,
  };
}
