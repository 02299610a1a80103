/**
 * Fetching a file source in the request (spec 4.6 file rules): refusals are answered
 * at once with the spec's codes, and only an accepted file is stored and queued.
 */
import { STATUS_CODES } from 'node:http';
import type { Context } from '../../context.ts';
import { errors } from '../../http/errors.ts';
import { SafeFetchError } from '../../platform/safe-fetch.ts';
import { detectFileKind } from './file-kind.ts';
import type { FileKind } from './store.ts';

export const MAX_FILE_BYTES = 50 * 1024 * 1024;

function fetchTimeoutMs(ctx: Context): number {
  return ctx.config.fileFetchTimeoutMs;
}

export interface FetchedFile {
  url: string;
  kind: FileKind;
  bytes: Uint8Array;
}

export async function fetchFile(ctx: Context, url: string, limits: { planLimitBytes: number }): Promise<FetchedFile> {
  const maxBytes = Math.min(limits.planLimitBytes, MAX_FILE_BYTES);
  const timeoutMs = fetchTimeoutMs(ctx);
  let response;
  try {
    await ctx.safeFetch.check(url);
    response = await ctx.safeFetch.fetch(url, { timeoutMs, maxBytes, maxRedirects: 5 });
  } catch (error) {
    throw refusal(error, { maxBytes, timeoutMs });
  }
  if (response.status < 200 || response.status > 299) {
    throw errors.fetchFailed(`The address answered ${response.status} ${STATUS_CODES[response.status] ?? ''}`.trim() + '.');
  }
  const kind = await detectFileKind(response.body);
  if (!kind) throw errors.unsupportedFileType('The file is not a PDF, a Word document (.docx), Markdown or plain text.');
  return { url: response.url, kind, bytes: response.body };
}

function refusal(error: unknown, limits: { maxBytes: number; timeoutMs: number }): Error {
  if (!(error instanceof SafeFetchError)) return error instanceof Error ? error : new Error(String(error));
  switch (error.kind) {
    case 'unsafe_url':
      return errors.unsafeUrl();
    case 'invalid_url':
      return errors.invalidField('url', 'url must be an http or https address');
    case 'too_large':
      return errors.fileTooLarge(`The file is larger than ${limits.maxBytes} bytes, the most that may be fetched.`);
    case 'timeout':
      return errors.fetchFailed(`The file did not arrive within ${Math.round(limits.timeoutMs / 1000)} seconds.`);
    case 'too_many_redirects':
      return errors.fetchFailed('The address redirected too many times.');
    default:
      return errors.fetchFailed(`The address could not be reached (${error.message}).`);
  }
}
