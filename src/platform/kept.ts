/**
 * The value kept under `key`, made and kept on first use. At `bound` values the map is emptied whole before the
 * next is kept: the process's caches of words and texts hold what is cheap to make again and read far more often
 * than made, so a bound that never lets them grow matters more than which values stay.
 */
export function keptOrMade<K, V>(kept: Map<K, V>, key: K, bound: number, make: () => V): V {
  const found = kept.get(key);
  if (found !== undefined) return found;
  if (kept.size >= bound) kept.clear();
  const made = make();
  kept.set(key, made);
  return made;
}
