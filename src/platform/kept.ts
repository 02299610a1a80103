/**
 * The value kept under `key`, made and kept on first use. At `bound` values the map is emptied whole before the
 * next is kept: the process's caches of words and texts hold what is cheap to make again and read far more often
 * than made, so a bound that never lets them grow matters more than which values stay.
 */
export function keptOrMade<K, V>(kept: Map<K, V>, key: K, bound: number, make: () => V): V {
  const found = kept.get(key);
  if (found !== undefined) return found;
  return keepBounded(kept, key, bound, make());
}

/** Keeps `value` under `key` in a map bounded as `keptOrMade`'s are (emptied whole at `bound` values); returns it. */
export function keepBounded<K, V>(kept: Map<K, V>, key: K, bound: number, value: V): V {
  if (kept.size >= bound) kept.clear();
  kept.set(key, value);
  return value;
}
