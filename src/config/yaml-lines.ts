// Finds where a key path sits in a parsed YAML document, so every config error can name
// its line. Falls back to the nearest ancestor that exists in the document.
import { isMap, isNode, isPair, isScalar, isSeq, type Document, type LineCounter, type Pair } from 'yaml';

export interface PathLocation {
  line: number | null;
  /** True when every segment of the path was found in the document. */
  found: boolean;
  /** How many leading segments were found. */
  depth: number;
  /** The search stopped at a mapping (or an empty document) missing the next key: a value
   *  there may come from a base layer. A list or scalar replaces base values whole. */
  stoppedAtMapping: boolean;
}

const lineOf = (node: unknown, lines: LineCounter): number | null => {
  if (!isNode(node) || !node.range) return null;
  return lines.linePos(node.range[0]).line;
};

const findPair = (map: unknown, key: PropertyKey): Pair | undefined => {
  if (!isMap(map)) return undefined;
  return map.items.find(
    (pair): pair is Pair => isPair(pair) && String(isScalar(pair.key) ? pair.key.value : pair.key) === String(key),
  );
};

/** The line of `path` (a key's own line, or a list item's line) in `doc`. */
export const locatePath = (doc: Document, lines: LineCounter, path: readonly PropertyKey[]): PathLocation => {
  let node: unknown = doc.contents;
  let line: number | null = lineOf(node, lines) ?? 1;
  for (const [depth, segment] of path.entries()) {
    const missing = (): PathLocation => ({
      line,
      found: false,
      depth,
      stoppedAtMapping: isMap(node) || (depth === 0 && (node === null || (isScalar(node) && node.value === null))),
    });
    if (isSeq(node) && typeof segment === 'number') {
      const item = node.items[segment];
      if (item === undefined) return missing();
      line = lineOf(item, lines) ?? line;
      node = item;
      continue;
    }
    const pair = findPair(node, segment);
    if (pair === undefined) return missing();
    line = lineOf(pair.key, lines) ?? lineOf(pair.value, lines) ?? line;
    node = pair.value;
  }
  return { line, found: true, depth: path.length, stoppedAtMapping: false };
};
