// GitHub counts its output limits in bytes of UTF-8, not in characters: a check run's summary and
// text, and a comment's body, hold at most 65,535 bytes. Text past the limit is cut on a character
// boundary and says so; a text the model reads (a patch, a file) is cut at a line end.

/** GitHub's limit for a check run's summary or text and for a comment body, in UTF-8 bytes. */
export const OUTPUT_BYTE_LIMIT = 65_535;

/** Appended to a cut text (on its own paragraph). */
export const CUT_NOTE = '\n\n*(cut here: GitHub takes at most 65,535 bytes)*';

const encoder = new TextEncoder();
const decoder = new TextDecoder();
// A decoder that keeps a leading U+FEFF: a cut text is a prefix of the text, its byte-order mark included.
const keepBom = new TextDecoder('utf-8', { ignoreBOM: true });

export const utf8Bytes = (text: string): number => encoder.encode(text).length;

/**
 * `text` when it fits in `maxBytes` of UTF-8; else its longest prefix that fits with `note` after
 * it, cut between two characters (never inside a character's bytes), followed by the note.
 */
export function fitBytes(text: string, maxBytes = OUTPUT_BYTE_LIMIT, note = CUT_NOTE): string {
  const bytes = encoder.encode(text);
  if (bytes.length <= maxBytes) return text;
  const room = maxBytes - utf8Bytes(note);
  if (room < 0) throw new Error(`a note of ${utf8Bytes(note)} bytes does not fit in ${maxBytes}`);
  let end = room;
  // A UTF-8 continuation byte is 10xxxxxx: step back to the first byte of that character.
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--;
  return decoder.decode(bytes.subarray(0, end)) + note;
}

/** Cuts a text to at most `maxBytes` UTF-8 bytes at a line end (or mid-line when no line fits). */
export const cutAtLineWithinBytes = (text: string, maxBytes: number): string => {
  if (maxBytes <= 0) return '';
  // Each UTF-16 unit is at least one byte, so the first `maxBytes` units hold every candidate.
  const head = keepBom.decode(encoder.encode(text.slice(0, maxBytes)).subarray(0, maxBytes));
  const safe = head.endsWith('\uFFFD') && !text.startsWith(head) ? head.slice(0, -1) : head;
  const nl = safe.lastIndexOf('\n');
  return nl > 0 ? safe.slice(0, nl + 1) : safe;
};
