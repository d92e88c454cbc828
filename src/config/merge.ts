// Merging of configuration layers (`_extends` bases, then the repository's file): mappings
// merge key by key, everything else (lists included) is replaced by the later layer.

export type PlainObject = Record<string, unknown>;

export const isPlainObject = (value: unknown): value is PlainObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `layers` from the most basic to the most specific; later layers win. */
export const mergeConfigLayers = (layers: readonly unknown[]): PlainObject => {
  const merge = (base: unknown, over: unknown): unknown => {
    if (!isPlainObject(base) || !isPlainObject(over)) return over === undefined ? base : over;
    const out: PlainObject = { ...base };
    for (const [key, value] of Object.entries(over)) out[key] = merge(base[key], value);
    return out;
  };
  let merged: PlainObject = {};
  for (const layer of layers) {
    if (layer === null || layer === undefined) continue;
    const next = merge(merged, layer);
    if (isPlainObject(next)) merged = next;
  }
  return merged;
};
