/**
 * `compute`, remembered for strings of up to `maxLength` characters: member names and short values
 * repeat on every line of a replay, and each miss costs regular expressions or a
 * `JSON.stringify`. At most `entries` results are kept; past that the memory starts over (cheaper
 * than LRU bookkeeping, and the repeats fill it again at once). `compute` must depend on its
 * argument alone and return a value the callers never change; when it throws, nothing is kept.
 */
export function remembered<T>(
  compute: (key: string) => T,
  maxLength = 64,
  entries = 4096,
): (key: string) => T {
  const memory = new Map<string, T>();
  return (key) => {
    if (key.length > maxLength) return compute(key);
    let value = memory.get(key);
    if (value === undefined && !memory.has(key)) {
      value = compute(key);
      if (memory.size >= entries) memory.clear();
      memory.set(key, value);
    }
    return value as T;
  };
}
