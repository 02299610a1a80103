import cookie from '@fastify/cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Context } from '../../context.ts';
import { errors } from '../../domain/errors.ts';
import { equalInConstantTime } from '../../platform/crypto.ts';
import { requireAllowed, requireRole, type PersonCaller } from '../../domain/principal.ts';
import { setLimitHeaders } from '../../http/auth.ts';
import * as people from './service.ts';
import * as schemas from './schemas.ts';
import { createKeyAsPerson, listKeysAsPerson, revokeKeyAsPerson } from './keys.ts';
import { SIGN_IN_POLICY, signInPage } from './sign-in-page.ts';
import { uploadRoutes } from './uploads.ts';
import * as passkeys from './passkeys.ts';
import { operationsRoutes } from './operations-routes.ts';
import { deleteTicketAsPerson, replyToTicketAsPerson } from '../tickets/dashboard.ts';
import { enableWebhookAsPerson, recentDeliveriesAsPerson } from '../webhooks/dashboard.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in person, on routes with `signedIn` (./routes.ts). */
    person: PersonCaller;
    sessionToken: string;
  }
  interface FastifyContextConfig {
    /** The route is for a signed-in person (dashboard): a session cookie, and for a change the CSRF token and own Origin. */
    signedIn?: boolean;
  }
}

export const DASHBOARD_PREFIX = '/app';
export const CSRF_HEADER = 'x-csrf-token';

/** The session cookie: `__Host-` and Secure when the service is reached over https (docs/people.md, "Sessions"). */
export function sessionCookieName(ctx: Context): string {
  return isHttps(ctx) ? '__Host-parley_session' : 'parley_session';
}

function isHttps(ctx: Context): boolean {
  return ctx.config.publicUrl.startsWith('https://');
}

/**
 * Sign-in and the dashboard's own operations (docs/people.md), under /app:
 * the sign-in page at /app/sign-in and the JSON routes under /app/api. API
 * keys never work here.
 */
export async function peopleRoutes(parent: FastifyInstance, ctx: Context): Promise<void> {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  await app.register(cookie);
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true };
  });
  // The sign-in page's button posts an HTML form.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
  app.addHook('onRequest', guard(ctx));

  app.get('/sign-in', { schema: { querystring: schemas.signInPageQuery } }, async (request, reply) =>
    reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      // The token is in the address: no other site may learn it from a Referer. Not no-referrer:
      // under it a browser sends Origin: null with the form's POST, which the guard refuses.
      .header('referrer-policy', 'same-origin')
      .header('content-security-policy', SIGN_IN_POLICY)
      .send(signInPage(request.query.token ?? '')),
  );
  // Only this POST uses the link, so a mail scanner that opens (GETs) it leaves it usable.
  app.post('/sign-in', { schema: { body: schemas.signInLinkUseBody } }, async (request, reply) => {
    let token: string;
    try {
      token = await people.signInWithLink(ctx, request.body.token, userAgentOf(request));
    } catch (error) {
      // The page's form (a browser): back to the dashboard's sign-in page, which says the link did not work; JSON callers get the error.
      if (request.headers['content-type']?.startsWith('application/x-www-form-urlencoded') && (error as { code?: string }).code === 'unauthorized') {
        return reply.redirect(`${DASHBOARD_PREFIX}?signIn=failed`, 303);
      }
      throw error;
    }
    return setSession(ctx, reply, token).redirect(DASHBOARD_PREFIX, 303);
  });

  app.post('/api/sign-in/links', { schema: { body: schemas.signInLinkBody, response: { 202: schemas.signInLinkSentReply } } }, async (request, reply) => {
    await people.requestSignInLink(ctx, request.body.email, request.ip);
    return reply.status(202).send({ data: { sent: true } });
  });
  app.post('/api/sign-in/password', { schema: { body: schemas.passwordSignInBody, response: { 200: schemas.meReply } } }, async (request, reply) => {
    const token = await people.signInWithPassword(ctx, request.body.email, request.body.password, request.ip, userAgentOf(request));
    const person = (await people.personOfSession(ctx, token))!;
    return setSession(ctx, reply, token).send({ data: await people.describeMe(ctx, person, token) });
  });

  // Passkeys (docs/people.md, "Passkeys"): the browser's WebAuthn answer, as JSON. Sign-in asks for no address.
  app.post('/api/sign-in/passkey/options', { schema: { response: { 200: schemas.signInOptionsReply } } }, async (request) => ({ data: await passkeys.signInOptions(ctx, request.ip) }));
  app.post('/api/sign-in/passkey', { schema: { body: schemas.passkeySignInBody, response: { 200: schemas.meReply } } }, async (request, reply) => {
    const token = await passkeys.signInWithPasskey(ctx, request.body.response as never, request.ip, userAgentOf(request));
    const person = (await people.personOfSession(ctx, token))!;
    return setSession(ctx, reply, token).send({ data: await people.describeMe(ctx, person, token) });
  });

  const signedIn = { signedIn: true };
  app.get('/api/me/passkeys', { config: signedIn, schema: { response: { 200: schemas.passkeyListReply } } }, async (request) => ({ data: await passkeys.listPasskeys(ctx, request.person), pagination: { nextCursor: null } }));
  app.post('/api/me/passkeys/options', { config: signedIn, schema: { response: { 200: schemas.registrationOptionsReply } } }, async (request) => ({ data: await passkeys.registrationOptions(ctx, request.person) }));
  app.post(
    '/api/me/passkeys',
    { config: signedIn, schema: { body: schemas.passkeyRegistrationBody, response: { 201: schemas.passkeyReply } } },
    async (request, reply) => reply.status(201).send({ data: await passkeys.registerPasskey(ctx, request.person, request.body as never, request.id) }),
  );
  app.patch('/api/me/passkeys/:passkeyId', { config: signedIn, schema: { params: schemas.passkeyParams, body: schemas.passkeyRenameBody, response: { 200: schemas.passkeyReply } } }, async (request) => ({
    data: await passkeys.renamePasskey(ctx, request.person, request.params.passkeyId, request.body.name, request.id),
  }));
  app.delete('/api/me/passkeys/:passkeyId', { config: signedIn, schema: { params: schemas.passkeyParams, response: { 200: schemas.passkeyRemovedReply } } }, async (request) => {
    await passkeys.removePasskey(ctx, request.person, request.params.passkeyId, request.id);
    return { data: { id: request.params.passkeyId, removed: true as const } };
  });
  app.get('/api/me', { config: signedIn, schema: { response: { 200: schemas.meReply } } }, async (request) => ({ data: await people.describeMe(ctx, request.person, request.sessionToken) }));
  app.put(
    '/api/me/password',
    { config: signedIn, schema: { body: schemas.passwordBody, response: { 200: schemas.passwordSetReply } } },
    async (request) => {
      await people.setPassword(ctx, request.person, request.body);
      return { data: { hasPassword: true as const } };
    },
  );
  app.patch(
    '/api/me',
    {
      config: signedIn,
      schema: { body: schemas.meChangeBody, response: { 200: schemas.meReply } },
    },
    async (request) => {
      await people.updateMe(ctx, request.person, request.body);
      const person = (await people.personOfSession(ctx, request.sessionToken))!;
      return { data: await people.describeMe(ctx, person, request.sessionToken) };
    },
  );
  app.put('/api/me/workspace', { config: signedIn, schema: { body: schemas.workspaceSwitchBody, response: { 200: schemas.meReply } } }, async (request) => {
    await people.switchWorkspace(ctx, request.person, request.body.workspaceId);
    const person = (await people.personOfSession(ctx, request.sessionToken))!;
    return { data: await people.describeMe(ctx, person, request.sessionToken) };
  });
  app.post('/api/sign-out', { config: signedIn, schema: { response: { 200: schemas.signedOutReply } } }, async (request, reply) => {
    await people.endOwnSession(ctx, request.person, request.person.sessionId);
    return clearSession(ctx, reply).send({ data: { signedOut: true as const } });
  });
  app.get('/api/sessions', { config: signedIn, schema: { response: { 200: schemas.sessionListReply } } }, async (request) => ({ data: await people.listOwnSessions(ctx, request.person), pagination: { nextCursor: null } }));
  app.delete('/api/sessions/:sessionId', { config: signedIn, schema: { params: schemas.sessionParams, response: { 200: schemas.sessionEndedReply } } }, async (request, reply) => {
    await people.endOwnSession(ctx, request.person, request.params.sessionId);
    if (request.params.sessionId === request.person.sessionId) clearSession(ctx, reply);
    return { data: { id: request.params.sessionId, ended: true as const } };
  });

  app.get('/api/keys', { config: signedIn, schema: { response: { 200: schemas.keyListReply } } }, async (request) => ({ data: await listKeysAsPerson(ctx, request.person), pagination: { nextCursor: null } }));
  app.post(
    '/api/keys',
    { config: signedIn, schema: { body: schemas.keyBody, response: { 201: schemas.createdKeyReply } } },
    async (request, reply) => reply.status(201).send({ data: await createKeyAsPerson(ctx, request.person, request.body, request.id) }),
  );
  app.delete('/api/keys/:keyId', { config: signedIn, schema: { params: schemas.keyParams, response: { 200: schemas.keyRevokedReply } } }, async (request) => ({
    data: await revokeKeyAsPerson(ctx, request.person, request.params.keyId, request.id),
  }));

  app.get('/api/people', { config: signedIn, schema: { response: { 200: schemas.personListReply } } }, async (request) => {
    requireRole(request.person, 'admin');
    return { data: await people.listPeople(ctx, request.person), pagination: { nextCursor: null } };
  });
  app.post(
    '/api/invitations',
    { config: signedIn, schema: { body: schemas.invitationBody, response: { 201: schemas.sentInvitationReply } } },
    async (request, reply) => {
      requireRole(request.person, 'admin');
      return reply.status(201).send({ data: await people.invite(ctx, request.person, request.body, request.id) });
    },
  );
  app.get('/api/invitations', { config: signedIn, schema: { response: { 200: schemas.invitationListReply } } }, async (request) => {
    requireRole(request.person, 'admin');
    return { data: await people.listInvitations(ctx, request.person), pagination: { nextCursor: null } };
  });
  app.delete('/api/invitations/:email', { config: signedIn, schema: { params: schemas.invitationParams, response: { 200: schemas.invitationWithdrawnReply } } }, async (request) => {
    requireRole(request.person, 'admin');
    await people.withdrawInvitation(ctx, request.person, request.params.email, request.id);
    return { data: { email: request.params.email, withdrawn: true as const } };
  });
  app.patch(
    '/api/people/:personId',
    { config: signedIn, schema: { params: schemas.personParams, body: schemas.roleChangeBody, response: { 200: schemas.personReply } } },
    async (request) => {
      requireRole(request.person, 'admin');
      return { data: await people.changeRole(ctx, request.person, request.params.personId, request.body, request.id) };
    },
  );
  app.delete('/api/people/:personId', { config: signedIn, schema: { params: schemas.personParams, response: { 200: schemas.personRemovedReply } } }, async (request) => {
    requireRole(request.person, 'admin');
    await people.removePerson(ctx, request.person, request.params.personId, request.id);
    return { data: { id: request.params.personId, removed: true as const } };
  });
  app.delete(
    '/api/agents/:agentId/tickets/:ticketId',
    { config: signedIn, schema: { params: schemas.ticketParams, response: { 200: schemas.ticketDeletedReply } } },
    async (request) => ({ data: await deleteTicketAsPerson(ctx, request.person, request.params.agentId, request.params.ticketId, request.id) }),
  );
  app.post(
    '/api/agents/:agentId/tickets/:ticketId/replies',
    { config: signedIn, schema: { params: schemas.ticketParams, body: schemas.ticketReplyBody, response: { 201: schemas.ticketEntryReply } } },
    async (request, reply) =>
      reply.status(201).send({ data: await replyToTicketAsPerson(ctx, request.person, request.params.agentId, request.params.ticketId, request.body.body, request.id) }),
  );
  app.post('/api/webhooks/:webhookId/enable', { config: signedIn, schema: { params: schemas.webhookParams, response: { 200: schemas.webhookEnabledReply } } }, async (request) => ({
    data: await enableWebhookAsPerson(ctx, request.person, request.params.webhookId, request.id),
  }));
  app.get('/api/webhooks/:webhookId/deliveries', { config: signedIn, schema: { params: schemas.webhookParams, response: { 200: schemas.deliveryListReply } } }, async (request) => ({
    data: await recentDeliveriesAsPerson(ctx, request.person, request.params.webhookId),
    pagination: { nextCursor: null },
  }));

  operationsRoutes(app, ctx);

  app.post('/api/ownership', { config: signedIn, schema: { body: schemas.ownershipBody, response: { 200: schemas.ownershipReply } } }, async (request) => {
    requireRole(request.person, 'owner');
    await people.handOver(ctx, request.person, request.body.personId, request.id);
    return { data: { ownerId: request.body.personId } };
  });

  // Files and branding images from the computer (multipart, in a scope of their own).
  await uploadRoutes(app, ctx);
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Every change under /app must come from the service's own origin when a
 * browser says where it comes from; a change made with the session cookie must
 * say so, and carry the session's CSRF token (GET /app/api/me gives it). A key
 * is refused with 403 (people only), no credentials with 401.
 */
function guard(ctx: Context) {
  return async function guardDashboardRequest(request: FastifyRequest): Promise<void> {
    if (!SAFE_METHODS.has(request.method) && request.headers.origin !== undefined && request.headers.origin !== ownOriginOf(ctx)) {
      throw errors.forbidden('Changes are accepted only from the dashboard itself (the Origin differs).');
    }
    if (!request.routeOptions.config.signedIn) return;
    const { person, token } = await signedInPerson(ctx, request);
    request.person = person;
    request.sessionToken = token;
  };
}

/** Read per request: the public address may be settled after the routes are built (a service on a port chosen at start). */
function ownOriginOf(ctx: Context): string {
  return new URL(ctx.config.publicUrl).origin;
}

/**
 * The session resolver of every cookie-authenticated route (/app/api and the
 * API's copy under /app/api/v1): the live session of the cookie, else 401 (403
 * for a request that carries an API key: people only); for a change, the
 * service's own Origin and the session's CSRF token, else 403.
 */
export async function signedInPerson(ctx: Context, request: FastifyRequest): Promise<{ person: PersonCaller; token: string }> {
  const ownOrigin = ownOriginOf(ctx);
  const origin = request.headers.origin;
  const changes = !SAFE_METHODS.has(request.method);
  if (changes && origin !== undefined && origin !== ownOrigin) throw errors.forbidden('Changes are accepted only from the dashboard itself (the Origin differs).');
  const token = request.cookies?.[sessionCookieName(ctx)];
  const person = token ? await people.personOfSession(ctx, token) : undefined;
  if (!token || !person) {
    if (request.headers.authorization !== undefined) throw errors.forbidden('API keys cannot do this: it is for people signed in to the dashboard.');
    throw errors.unauthorized('Sign in first: the session is missing, ended or expired.');
  }
  if (changes) {
    if (origin !== ownOrigin) throw errors.forbidden('A change made with the session cookie needs the Origin header of the dashboard itself.');
    const csrf = request.headers[CSRF_HEADER];
    if (typeof csrf !== 'string' || !equalInConstantTime(csrf, people.csrfTokenOf(token))) {
      throw errors.forbidden(`The ${CSRF_HEADER} header is missing or wrong (GET /app/api/me gives it).`);
    }
  }
  return { person, token };
}

/** The prefix of the REST API's copy for signed-in people (docs/people.md, "The API in the dashboard"). */
export const DASHBOARD_API_PREFIX = `${DASHBOARD_PREFIX}/api/v1`;

/**
 * Makes a scope the REST API's copy for signed-in people: the API's routes are
 * registered in it a second time, authenticated by the session cookie (with the
 * CSRF token and own Origin for changes) instead of a key, which is refused
 * there (403). The rest is the API's: a person's requests are counted per person
 * with the same limit and headers; the scope or role the route needs is checked
 * with the same principal checks (domain/principal.ts): a person's role stands
 * for a key's scope. api_not_in_plan is a key's rule: the dashboard works on
 * every plan, and every other plan limit holds with the same codes. The copies
 * are hidden from the API's OpenAPI document and the MCP server.
 */
export async function personApiScope(app: FastifyInstance, ctx: Context): Promise<void> {
  await app.register(cookie);
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true };
  });
  app.addHook('onRequest', async (request, reply) => {
    const { scope, role, rateLimited } = request.routeOptions.config;
    // Public routes (an export link, the widget's images) stay public here as under /api/v1.
    if (!scope && (rateLimited === false || !request.is404)) return;
    const { person } = await signedInPerson(ctx, request);
    setLimitHeaders(reply, await ctx.limiter.hit(`person:${person.personId}`));
    if (!scope) return;
    requireAllowed(person, { scope, role });
    request.auth = person;
  });
}

function setSession(ctx: Context, reply: FastifyReply, token: string): FastifyReply {
  return reply.setCookie(sessionCookieName(ctx), token, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: isHttps(ctx),
    maxAge: people.SESSION_ABSOLUTE_MS / 1000,
  });
}

function clearSession(ctx: Context, reply: FastifyReply): FastifyReply {
  return reply.clearCookie(sessionCookieName(ctx), { path: '/', httpOnly: true, sameSite: 'lax', secure: isHttps(ctx) });
}

function userAgentOf(request: FastifyRequest): string {
  return request.headers['user-agent'] ?? '';
}
