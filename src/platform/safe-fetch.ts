/**
 * The one guarded client for every outbound request (crawl, file, image, webhook).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';
import { Agent, buildConnector, type Dispatcher, request as undiciRequest } from 'undici';
import { checkedAddresses, checkUrl, parseUrl, safeAddresses } from './safe-address.ts';
import { describeError, SafeFetchError } from './safe-fetch-error.ts';

export { guardedAddresses, namesPrivateHost } from './safe-address.ts';
export { SafeFetchError, type SafeFetchFailure } from './safe-fetch-error.ts';

export interface SafeRequest {
  method?: 'GET' | 'POST' | 'HEAD';
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Whole request, connect to last byte. */
  timeoutMs?: number;
  /** Reading stops and too_large is thrown once more than this many bytes arrive (or content-length says so). */
  maxBytes?: number;
  /** 0: a redirect is returned as the response, not followed. Each hop is checked again. Default 5. */
  maxRedirects?: number;
  /** false: the body is discarded unread and body comes back empty (a webhook's answer counts only by its status). */
  readBody?: boolean;
}

export interface SafeResponse {
  status: number;
  headers: Headers;
  /** The address that answered, after redirects. */
  url: string;
  body: Uint8Array;
}

export interface SafeFetch {
  fetch(url: string, request?: SafeRequest): Promise<SafeResponse>;
  /** Throws unsafe_url or invalid_url when the address could never be fetched (literal private address, name resolving to one, scheme not http/https). */
  check(url: string): Promise<void>;
}

const USER_AGENT = 'Parley/1.0 (+https://github.com/parley)';
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

type Response = Dispatcher.ResponseData;
type Limits = Required<Pick<SafeRequest, 'timeoutMs' | 'maxBytes' | 'maxRedirects'>>;

export function createSafeFetch(options: { allowPrivate: boolean }): SafeFetch {
  const { allowPrivate } = options;
  const dispatcher = new Agent({ connect: guardedConnector(allowPrivate) });

  function check(url: string): Promise<void> {
    return checkUrl(url, allowPrivate);
  }

  async function fetch(url: string, request: SafeRequest = {}): Promise<SafeResponse> {
    const limits: Limits = {
      timeoutMs: request.timeoutMs ?? 20_000,
      maxBytes: request.maxBytes ?? 50 * 1024 * 1024,
      maxRedirects: request.maxRedirects ?? 5,
    };
    const signal = AbortSignal.timeout(limits.timeoutMs);
    try {
      // The race bounds the steps undici does not see, such as the DNS check before each hop.
      return await Promise.race([follow(parseUrl(url), request, limits, signal), whenAborted(signal)]);
    } catch (error) {
      throw asSafeFetchError(error, signal, url);
    }
  }

  async function follow(url: URL, request: SafeRequest, limits: Limits, signal: AbortSignal): Promise<SafeResponse> {
    for (let hop = 0; ; hop++) {
      await checkedAddresses(url, allowPrivate);
      const response = await send(url, request, dispatcher, signal);
      const next = redirectTarget(response, url);
      if (!next || limits.maxRedirects === 0) {
        if (request.readBody === false) return unread(response, url);
        return read(response, url, request.method, limits.maxBytes);
      }
      await response.body.dump();
      if (hop >= limits.maxRedirects) {
        throw new SafeFetchError('too_many_redirects', `more than ${limits.maxRedirects} redirects from ${url.href}`);
      }
      request = redirectedRequest(request, response.statusCode, url, next);
      url = next;
    }
  }

  return { fetch, check };
}

/**
 * The check that counts: the name is resolved again here and the socket goes to
 * exactly the address that passed, so DNS cannot answer differently in between.
 */
function guardedConnector(allowPrivate: boolean): buildConnector.connector {
  const connect = buildConnector({});
  return (options, callback) => {
    safeAddresses(options.hostname, allowPrivate).then(
      ([address]) => {
        const servername = options.servername || (isIP(options.hostname) ? undefined : options.hostname);
        connect({ ...options, hostname: address, servername }, callback);
      },
      (error: Error) => callback(error, null),
    );
  };
}

function send(url: URL, request: SafeRequest, dispatcher: Dispatcher, signal: AbortSignal): Promise<Response> {
  return undiciRequest(url, {
    method: request.method ?? 'GET',
    headers: withUserAgent(request.headers ?? {}),
    body: request.body,
    dispatcher,
    signal,
  });
}

function withUserAgent(headers: Record<string, string>): Record<string, string> {
  const hasAgent = Object.keys(headers).some((name) => name.toLowerCase() === 'user-agent');
  return hasAgent ? headers : { ...headers, 'user-agent': USER_AGENT };
}

function redirectTarget(response: Response, from: URL): URL | undefined {
  const location = response.headers.location;
  if (!REDIRECTS.has(response.statusCode) || typeof location !== 'string') return undefined;
  return parseUrl(location, from);
}

/** As browsers do: a POST redirected by 301/302/303 becomes a GET, and credentials stay with their origin. */
function redirectedRequest(request: SafeRequest, status: number, from: URL, to: URL): SafeRequest {
  const next = { ...request };
  if (request.method === 'POST' && status !== 307 && status !== 308) {
    next.method = 'GET';
    next.body = undefined;
  }
  if (from.origin !== to.origin && request.headers) {
    next.headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !/^(authorization|cookie)$/i.test(name)));
  }
  return next;
}

async function read(response: Response, url: URL, method: SafeRequest['method'], maxBytes: number): Promise<SafeResponse> {
  const declared = Number(response.headers['content-length']);
  if (method !== 'HEAD' && declared > maxBytes) {
    response.body.destroy();
    throw tooLarge(url, maxBytes, declared);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of response.body) {
    total += chunk.length;
    if (total > maxBytes) {
      response.body.destroy();
      throw tooLarge(url, maxBytes);
    }
    chunks.push(chunk);
  }
  return { status: response.statusCode, headers: toHeaders(response.headers), url: url.href, body: new Uint8Array(Buffer.concat(chunks)) };
}

function unread(response: Response, url: URL): SafeResponse {
  // Destroying an unread body makes undici emit an abort error: nobody waits for it.
  response.body.on('error', () => {});
  response.body.destroy();
  return { status: response.statusCode, headers: toHeaders(response.headers), url: url.href, body: new Uint8Array() };
}

function tooLarge(url: URL, maxBytes: number, declaredBytes?: number): SafeFetchError {
  return new SafeFetchError('too_large', `${url.href} is larger than ${maxBytes} bytes`, declaredBytes);
}

function toHeaders(raw: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    for (const item of Array.isArray(value) ? value : [value ?? '']) headers.append(name, item);
  }
  return headers;
}

function whenAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
}

function asSafeFetchError(error: unknown, signal: AbortSignal, url: string): SafeFetchError {
  if (error instanceof SafeFetchError) return error;
  if (signal.aborted) return new SafeFetchError('timeout', `${url} did not finish in time`);
  return new SafeFetchError('network', `${url}: ${describeError(error)}`);
}
