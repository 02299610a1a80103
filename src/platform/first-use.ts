/**
 * A module (or anything costly) made by its first use rather than at start-up (docs/performance.md, Memory): callers
 * that arrive together share the one making; a failed one is tried again by the next call.
 */
export function firstUse<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => {
    made ??= make().catch((error: unknown) => {
      made = undefined;
      throw error;
    });
    return made;
  };
}
