// Hidden markers in Arbiter's comments: one names what a comment is (so it is updated in place
// and never repeated, even when the store is lost), one carries the decision receipt.

export const markerFor = (id: string): string => `<!-- arbiter:${id} -->`;

export function hasMarker(body: string | null | undefined, id: string): boolean {
  return typeof body === 'string' && body.includes(markerFor(id));
}

/** JSON that is safe inside an HTML comment: `<` and `>` escaped, so `-->` never appears. */
export function receiptMarker(receipt: unknown): string {
  const json = JSON.stringify(receipt).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/--/g, '-\\u002d');
  return `<!-- arbiter:receipt ${json} -->`;
}

export function readReceiptMarker(body: string): unknown | null {
  const match = /<!-- arbiter:receipt (\{.*?\}) -->/s.exec(body);
  if (!match) return null;
  try {
    return JSON.parse(match[1]);
  } catch {
    return null;
  }
}
