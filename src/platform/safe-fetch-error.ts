/**
 * The error of every outbound request (src/platform/safe-fetch.ts), in a module of its own so that the modules that
 * only tell its kinds apart do not load the HTTP client (undici) at start-up (docs/performance.md, Memory).
 */
export type SafeFetchFailure = 'unsafe_url' | 'invalid_url' | 'too_large' | 'timeout' | 'network' | 'too_many_redirects';

export class SafeFetchError extends Error {
  readonly kind: SafeFetchFailure;
  /** too_large refused on the length the server declared (content-length), before reading: that length. */
  readonly declaredBytes: number | undefined;
  constructor(kind: SafeFetchFailure, message: string, declaredBytes?: number) {
    super(message);
    this.name = 'SafeFetchError';
    this.kind = kind;
    this.declaredBytes = declaredBytes;
  }
}

/** An error's message with its cause's, for a SafeFetchError's message. */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}
