import type { Reply, Service } from '../../../test/support/harness.ts';
import { CSRF_HEADER } from './routes.ts';

/** A browser signed in to the dashboard: its cookie, its CSRF token and the service's own Origin on every change. */
export interface SignedIn {
  cookie: string;
  csrfToken: string;
  origin: string;
  call<T = any>(method: string, path: string, body?: unknown, options?: { csrf?: string | null; origin?: string | null; cookie?: string }): Promise<Reply<T>>;
}

/** Calls a path under /app as a browser would (no redirects followed). */
export async function appCall(service: Service, method: string, path: string, options: { body?: unknown; form?: Record<string, string>; headers?: Record<string, string> } = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | undefined;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  } else if (options.form) {
    body = new URLSearchParams(options.form).toString();
    headers['content-type'] = 'application/x-www-form-urlencoded';
  }
  const response = await fetch(`${service.url}/app${path}`, { method, headers, body, redirect: 'manual' });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // HTML or empty: left as text
  }
  return { status: response.status, headers: response.headers, body: parsed };
}

export function ownOrigin(service: Service): string {
  return new URL(service.ctx.config.publicUrl).origin;
}

/** The token of a sign-in link. */
export function tokenOf(url: string): string {
  return new URL(url).searchParams.get('token')!;
}

/** The session cookie a sign-in reply set, as a Cookie header. */
export function sessionCookieOf(reply: Reply): string {
  const set = reply.headers.getSetCookie().find((line) => /parley_session=/.test(line));
  if (!set) throw new Error(`no session cookie: ${reply.status} ${JSON.stringify(reply.body)}`);
  return set.split(';')[0]!;
}

/** Signs in with a sign-in link's token, as the page's button does. */
export async function signInWithToken(service: Service, token: string): Promise<SignedIn> {
  const reply = await appCall(service, 'POST', '/sign-in', { form: { token }, headers: { origin: ownOrigin(service) } });
  if (reply.status !== 303) throw new Error(`sign-in failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return signedInAs(service, sessionCookieOf(reply));
}

export async function signedInAs(service: Service, cookie: string): Promise<SignedIn> {
  const me = await appCall(service, 'GET', '/api/me', { headers: { cookie } });
  if (me.status !== 200) throw new Error(`me failed: ${me.status} ${JSON.stringify(me.body)}`);
  const origin = ownOrigin(service);
  const csrfToken = me.body.data.csrfToken as string;
  return {
    cookie,
    csrfToken,
    origin,
    call: (method, path, body, options = {}) => {
      const headers: Record<string, string> = { cookie: options.cookie ?? cookie };
      if (options.csrf !== null) headers[CSRF_HEADER] = options.csrf ?? csrfToken;
      if (options.origin !== null) headers.origin = options.origin ?? origin;
      return appCall(service, method, path, { body, headers });
    },
  };
}

/** Signs in as a person of the workspace with a link the operator API makes (the owner's unless an address is given). */
export async function signIn(service: Service, workspaceId: string, email?: string): Promise<SignedIn> {
  const link = await service.admin('POST', `/workspaces/${workspaceId}/sign-in-links`, email ? { email } : {});
  if (link.status !== 201) throw new Error(`link failed: ${link.status} ${JSON.stringify(link.body)}`);
  return signInWithToken(service, tokenOf(link.body.data.url));
}

/** Adds a person to the workspace with a role through an invitation the owner sends and the person accepts. */
export async function addPerson(service: Service, owner: SignedIn, email: string, role: 'admin' | 'member', agentIds?: string[]): Promise<SignedIn> {
  const invited = await owner.call('POST', '/api/invitations', { email, role, ...(agentIds ? { agentIds } : {}) });
  if (invited.status !== 201) throw new Error(`invite failed: ${invited.status} ${JSON.stringify(invited.body)}`);
  const mail = await latestMailTo(service, email);
  return signInWithToken(service, tokenOf(linkIn(mail.text)));
}

export async function latestMailTo(service: Service, email: string, timeoutMs = 5000): Promise<{ subject: string; text: string }> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const outbox = await service.admin('GET', '/outbox');
    const mail = outbox.body.data.find((m: { to: string }) => m.to === email);
    if (mail) return mail;
    if (Date.now() > until) throw new Error(`no mail to ${email}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export function linkIn(text: string): string {
  const found = text.match(/https?:\/\/\S+\/app\/sign-in\?token=[0-9A-Za-z]+/);
  if (!found) throw new Error(`no sign-in link in: ${text}`);
  return found[0];
}

/** Sends a multipart/form-data body as the signed-in browser (its cookie, CSRF token and Origin). */
export async function sendForm(service: Service, person: SignedIn, path: string, form: FormData, options: { csrf?: string | null } = {}): Promise<Reply> {
  const headers: Record<string, string> = { cookie: person.cookie, origin: person.origin };
  if (options.csrf !== null) headers[CSRF_HEADER] = options.csrf ?? person.csrfToken;
  const response = await fetch(`${service.url}/app${path}`, { method: 'POST', headers, body: form, redirect: 'manual' });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: left as text
  }
  return { status: response.status, headers: response.headers, body: parsed };
}

/** A form of files: each [name, bytes]. */
export function formOf(files: Array<[string, Uint8Array | string]>, fields: Record<string, string> = {}, partName = 'file'): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  for (const [name, bytes] of files) form.append(partName, new Blob([typeof bytes === 'string' ? bytes : Buffer.from(bytes)]), name);
  return form;
}
