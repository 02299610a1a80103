/**
 * The dashboard's one way to the service: JSON to and from /app/api (the people's routes)
 * and /app/api/v1 (the public API's verbs for a signed-in person), with the session's
 * CSRF token on every change. A failure is an ApiError carrying the API's code, message
 * and details (shown next to the fields they name); the browser checks no rule itself.
 */
export interface FieldError {
  field: string;
  message: string;
}

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: FieldError[];
  constructor(status: number, code: string, message: string, details: FieldError[] = []) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
  }
  /** The message for one field, if the API named it. */
  field(name: string): string | undefined {
    return this.details.find((d) => d.field === name || d.field.startsWith(`${name}.`))?.message;
  }
}

export interface ListReply<T> {
  data: T[];
  pagination: { nextCursor: string | null };
}

let csrfToken = '';
let onSignedOut: () => void = () => {};

export function startSession(token: string, signedOut: () => void): void {
  csrfToken = token;
  onSignedOut = signedOut;
}

/** The session's CSRF token, for requests the dashboard makes without call() (an upload with progress). */
export function csrf(): string {
  return csrfToken;
}

/** Calls a path under /app/api: '/me', or '/v1/agents' for the public API's verbs. */
export async function call<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(`/app/api${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'same-origin' });
  } catch {
    throw new ApiError(0, 'network', '');
  }
  const text = await response.text();
  let parsed: any;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!response.ok) {
    const error = parsed?.error;
    if (response.status === 401 && path !== '/me') onSignedOut();
    throw new ApiError(response.status, error?.code ?? 'internal_error', error?.message ?? response.statusText, Array.isArray(error?.details) ? error.details : []);
  }
  return parsed as T;
}

/** The data of a single-object reply. */
export async function get<T>(path: string): Promise<T> {
  return (await call<{ data: T }>('GET', path)).data;
}

export async function send<T>(method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T> {
  return (await call<{ data: T }>(method, path, body)).data;
}

/** Every page of a list, following nextCursor (the dashboard's lists are short: agents, the sources of one agent). */
export async function list<T>(path: string): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  do {
    const separator = path.includes('?') ? '&' : '?';
    const page: ListReply<T> = await call('GET', cursor ? `${path}${separator}cursor=${encodeURIComponent(cursor)}` : path);
    items.push(...page.data);
    cursor = page.pagination?.nextCursor ?? null;
  } while (cursor);
  return items;
}
