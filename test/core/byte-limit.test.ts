// cutAtLineWithinBytes: a text cut to a byte budget at a line end, never inside a character, and
// exactly as the Buffer-based cut it replaced (core does no Node I/O types).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { cutAtLineWithinBytes, utf8Bytes } from '../../src/core/render/byte-limit.ts';

/** The cut as it was written with Node's Buffer, kept here as the reference. */
const bufferCut = (text: string, maxBytes: number): string => {
  if (maxBytes <= 0) return '';
  const head = Buffer.from(text.slice(0, maxBytes), 'utf8').subarray(0, maxBytes).toString('utf8');
  const safe = head.endsWith('\uFFFD') && !text.startsWith(head) ? head.slice(0, -1) : head;
  const nl = safe.lastIndexOf('\n');
  return nl > 0 ? safe.slice(0, nl + 1) : safe;
};

describe('cutAtLineWithinBytes', () => {
  it.each([
    { name: 'a text that fits', text: 'a\nb\n', max: 10, cut: 'a\nb\n' },
    { name: 'at the last line end that fits', text: 'one\ntwo\nthree\n', max: 9, cut: 'one\ntwo\n' },
    { name: 'mid-line when no line fits', text: 'abcdef\n', max: 3, cut: 'abc' },
    { name: 'never inside a character', text: 'ab€cd', max: 4, cut: 'ab' },
    { name: 'never inside a surrogate pair', text: 'a😀b', max: 3, cut: 'a' },
    { name: 'a byte-order mark kept', text: '\uFEFFabc', max: 4, cut: '\uFEFFa' },
    { name: 'nothing for no budget', text: 'abc', max: 0, cut: '' },
  ])('$name', ({ text, max, cut }) => {
    expect(cutAtLineWithinBytes(text, max)).toBe(cut);
  });

  const units = ['a', 'é', '€', '😀', '\n', '\uFEFF', '\uD800'];

  it('cuts as the Buffer-based cut did', () => {
    // U+FFFD in the text too: the replacement character is where the two decoders could differ.
    const text = fc.string({ unit: fc.constantFrom(...units, '\uFFFD') });
    fc.assert(
      fc.property(text, fc.integer({ min: -1, max: 40 }), (t, max) => {
        expect(cutAtLineWithinBytes(t, max)).toBe(bufferCut(t, max));
      }),
      { numRuns: 2000 },
    );
  });

  it('stays within the budget', () => {
    // Not for a text with U+FFFD at the cut: that character is kept whole (as it always was).
    const text = fc.string({ unit: fc.constantFrom(...units) });
    fc.assert(
      fc.property(text, fc.integer({ min: 0, max: 40 }), (t, max) => {
        expect(utf8Bytes(cutAtLineWithinBytes(t, max))).toBeLessThanOrEqual(max);
      }),
      { numRuns: 2000 },
    );
  });
});
