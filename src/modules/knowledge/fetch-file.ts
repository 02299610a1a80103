/**
 * Fetching a file source in the request (spec 4.6 file rules): refusals are answered
 * at once with the spec's codes, and only an accepted file is stored and queued.
 */
import { STATUS_CODES } from '../../platform/http-status.ts';
import type { Context } from '../../context.ts';
import { errors } from '../../domain/errors.ts';
import { SafeFetchError } from '../../platform/safe-fetch-error.ts';
import { detectFileKind } from './file-kind.ts';
import type { FileKind } from './store.ts';

/** Spec 8: a file source is never larger than this, whatever the plan's storage. */
export const MAX_FILE_BYTES = 50 * 1024 * 1024;
/**
 * How much longer than its time limit a fetch may stay recorded as under way: the address
 * check before it and storing the file after it are outside the limit. Past that the
 * record belongs to a process that died mid-fetch and no longer makes the agent busy.
 */
const FETCH_RECORD_MARGIN_MS = 60_000;

export function fetchRecordLifetimeMs(ctx: Context): number {
  return ctx.config.fileFetchTimeoutMs + FETCH_RECORD_MARGIN_MS;
}

export interface FetchedFile {
  url: string;
  kind: FileKind;
  bytes: Uint8Array;
}

/**
 * The download stops as soon as the file passes either limit: the agent's storage
 * allowance left (402 storage_limit_reached) or the 50 MB cap (413 file_too_large).
 */
export async function fetchFile(ctx: Context, url: string, limits: { allowanceLeftBytes: number }): Promise<FetchedFile> {
  const maxBytes = Math.min(limits.allowanceLeftBytes, MAX_FILE_BYTES);
  const timeoutMs = ctx.config.fileFetchTimeoutMs;
  let response;
  try {
    await ctx.safeFetch.check(url);
    response = await ctx.safeFetch.fetch(url, { timeoutMs, maxBytes, maxRedirects: 5 });
  } catch (error) {
    throw refusal(error, { ...limits, timeoutMs });
  }
  if (response.status < 200 || response.status > 299) {
    throw errors.fetchFailed(`The address answered ${response.status} ${STATUS_CODES[response.status] ?? ''}`.trim() + '.');
  }
  const kind = await detectFileKind(response.body);
  if (!kind) throw errors.unsupportedFileType('The file is not a PDF, a Word document (.docx), Markdown or plain text.');
  return { url: response.url, kind, bytes: response.body };
}

function refusal(error: unknown, limits: { allowanceLeftBytes: number; timeoutMs: number }): Error {
  if (!(error instanceof SafeFetchError)) return error instanceof Error ? error : new Error(String(error));
  switch (error.kind) {
    case 'unsafe_url':
      return errors.unsafeUrl();
    case 'invalid_url':
      return errors.invalidField('url', 'url must be an http or https address');
    case 'too_large':
      return overCap(error, limits.allowanceLeftBytes)
        ? errors.fileTooLarge(`The file is larger than ${MAX_FILE_BYTES} bytes (50 MB), the most that may be fetched.`)
        : errors.storageLimitReached();
    case 'timeout':
      return errors.fetchFailed(`The file did not arrive within ${Math.round(limits.timeoutMs / 1000)} seconds.`);
    case 'too_many_redirects':
      return errors.fetchFailed('The address redirected too many times.');
    default:
      return errors.fetchFailed(`The address could not be reached (${error.message}).`);
  }
}

/**
 * Which limit a refused file passed. A declared length says it outright; a file refused
 * while streaming passed the lower of the two, where the download stopped.
 */
function overCap(error: SafeFetchError, allowanceLeftBytes: number): boolean {
  if (error.declaredBytes !== undefined) return error.declaredBytes > MAX_FILE_BYTES;
  return allowanceLeftBytes >= MAX_FILE_BYTES;
}
