import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify';

type FastifySchemaControllerOptions = NonNullable<FastifyServerOptions['schemaController']>;
import swagger from '@fastify/swagger';
import { jsonSchemaTransform, jsonSchemaTransformObject, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import pino from 'pino';
import type { Context } from './context.ts';
import { clientErrorRenderer, frameworkErrorRenderer, installErrorHandling, notFound } from './http/error-handler.ts';
import { rejectingUnstorableText, requireDeclaredParams } from './http/text-guard.ts';
import { installSecurityHeaders } from './http/security-headers.ts';
import { openResponseSchemas } from './http/openapi.ts';
import { inDutch } from './http/openapi-languages.ts';
import { checkingSerializer, compiledSerializer } from './http/serializer.ts';
import { authenticate } from './http/auth.ts';
import { auditRoutes } from './http/audit-hook.ts';
import { newId } from './platform/ids.ts';
import { installRequestLog, lazyChildLogger } from './http/request-log.ts';
import { workspaceRoutes } from './modules/workspace/routes.ts';
import { adminRoutes } from './modules/admin/routes.ts';
import { homeRoutes } from './http/home.ts';
import { widgetRoutes } from './modules/widget/routes.ts';
import { apiModules } from './modules/index.ts';
import { VISITOR_PREFIX, visitorScope } from './modules/visitors/scope.ts';
import { RouteCatalog } from './mcp/catalog.ts';
import { mcpRoutes } from './mcp/routes.ts';
import { clientArchiveRoutes } from './modules/clients/archive.ts';
import { DASHBOARD_API_PREFIX, DASHBOARD_PREFIX, peopleRoutes, personApiScope } from './modules/people/routes.ts';
import { dashboardRoutes } from './modules/dashboard/routes.ts';

export type App = FastifyInstance;
export type ApiPlugin = (app: FastifyInstance, ctx: Context) => Promise<void> | void;

export interface AppOptions {
  logger?: boolean;
  /** Parse every response with its schema before sending it (tests): a response that breaks its contract is a 500. */
  checkResponses?: boolean;
}

/** Builds the HTTP app from a context: the public API under /api/v1, the visitor API under /visitor/v1, the operator API under /admin/v1, the MCP server at /mcp, the front page, /health and /docs. */
export async function buildApp(ctx: Context, options: AppOptions = {}): Promise<App> {
  // Written asynchronously: lines logged while a write is under way go out together in the next one,
  // instead of one blocking write to stdout per request.
  const logStream = options.logger === false ? undefined : pino.destination({ dest: 1, sync: false });
  const validateRequests = rejectingUnstorableText(validatorCompiler);
  const serializerOf = options.checkResponses ? checkingSerializer : serializerAtFirstUse;
  const app = Fastify({
    logger: logStream ? { level: ctx.config.logLevel, stream: logStream } : false,
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: lazyChildLogger,
    genReqId: () => newId('req'),
    requestIdHeader: false,
    bodyLimit: 1024 * 1024,
    trustProxy: false,
    routerOptions: { ignoreTrailingSlash: true },
    frameworkErrors: frameworkErrorRenderer(ctx),
    clientErrorHandler: clientErrorRenderer(ctx),
    // The compilers are ours (zod's validator, our serializer, set below): named here, Fastify never requires its
    // defaults, @fastify/ajv-compiler and @fastify/fast-json-stringify-compiler, and with them Ajv, its formats and
    // fast-json-stringify, which the first compiled serializer loads instead (docs/performance.md, Memory).
    // (Fastify's types name Ajv's and fast-json-stringify's compilers here; at run time any compiler goes.)
    schemaController: { compilersFactory: { buildValidator: () => validateRequests, buildSerializer: () => serializerOf } as unknown as FastifySchemaControllerOptions['compilersFactory'] },
  }).withTypeProvider<ZodTypeProvider>();

  if (logStream) app.addHook('onClose', async () => flushLogs(logStream));
  app.setValidatorCompiler(validateRequests);
  app.addHook('onRoute', requireDeclaredParams);
  app.setSerializerCompiler(serializerOf);
  installErrorHandling(app);

  // Hooks on every request are written with callbacks: an async hook costs a promise per request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  installRequestLog(app);
  // nosniff everywhere, no-store for keyed replies, a policy and no framing for the service's own pages.
  installSecurityHeaders(app);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Parley API', version: '1.0.0', description: 'The public REST API of Parley (spec api-v1).' },
      servers: [{ url: `${ctx.config.publicUrl}/api/v1` }],
      components: { securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'cl_ followed by 48 characters' } } },
      security: [{ apiKey: [] }],
    },
    transform: (input) => {
      const transformed = jsonSchemaTransform(input);
      // The OpenAPI document describes the public API relative to its server URL.
      return { ...transformed, url: transformed.url.replace(/^\/api\/v1/, '') || '/' };
    },
    transformObject: (input) => openResponseSchemas(jsonSchemaTransformObject(input)),
    hideUntagged: false,
  });

  // The MCP tools reuse the API's routes: their schemas, scopes and audit actions.
  const apiRoutes = new RouteCatalog('/api/v1');
  await app.register(
    async (api) => {
      api.addHook('onRequest', authenticate(ctx));
      api.addHook('onRoute', apiRoutes.record);
      // Unknown routes under /api/v1 pass through this scope's hooks too (request id, rate-limit headers).
      api.setNotFoundHandler(notFound);
      api.addHook('onRoute', auditRoutes(ctx));
      api.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
      // The same document in Dutch, its prose from src/http/openapi.nl.ts (docs/api-conventions.md).
      api.get('/openapi.nl.json', { schema: { hide: true } }, async () => inDutch(app.swagger()));
      await apiAreas(api, ctx);
    },
    { prefix: '/api/v1' },
  );
  // The same routes for people signed in to the dashboard, by session cookie instead of a key (docs/people.md).
  await app.register(
    async (api) => {
      await personApiScope(api, ctx);
      api.setNotFoundHandler(notFound);
      api.addHook('onRoute', auditRoutes(ctx));
      await apiAreas(api, ctx);
    },
    { prefix: DASHBOARD_API_PREFIX },
  );

  // The MCP server at /mcp, beside /api/v1, on the same keys and limit (docs/mcp.md).
  await app.register(async (mcp) => mcpRoutes(mcp, ctx, apiRoutes));
  // The keyless visitor API the widget and the iframe page call (docs/visitors.md).
  await app.register(async (visitors) => visitorScope(visitors, ctx), { prefix: VISITOR_PREFIX });
  await app.register(async (admin) => adminRoutes(admin, ctx), { prefix: '/admin/v1' });
  // Sign-in, sessions and the dashboard-only operations of people (docs/people.md): a session cookie, never a key.
  await app.register(async (dashboard) => peopleRoutes(dashboard, ctx), { prefix: DASHBOARD_PREFIX });
  // The dashboard's pages and their files (docs/dashboard.md): the page needs no session, its API calls do.
  await app.register(async (dashboard) => dashboardRoutes(dashboard, ctx), { prefix: DASHBOARD_PREFIX });
  // The front page, /health and the API reference at /docs: no key.
  await homeRoutes(app, ctx);
  // The widget's loader and module, and the iframe page (docs/widget.md): no key.
  await widgetRoutes(app, ctx);
  // The client's archive of monthly reports behind its link (docs/clients.md): no key.
  await clientArchiveRoutes(app, ctx);
  return app;
}

/**
 * A route's response serializer is compiled by the first response that needs it, not at start-up: the routes
 * (each twice, under /api/v1 and /app/api/v1, with a schema per status) have about a thousand, and compiling
 * them all kept some 20 MB of generated code that an idle process never runs (docs/performance.md, Memory).
 * Tests build the app with checkingSerializer, likewise compiled at first use; openapi.test.ts compiles every one
 * (compileEverySerializer), so a schema that cannot be compiled still fails there.
 */
const serializerAtFirstUse: typeof compiledSerializer = (route) => {
  let serialize: ((data: unknown) => string) | undefined;
  return (data) => (serialize ??= compiledSerializer(route))(data);
};

/** The REST API's areas, registered under /api/v1 for keys and again under /app/api/v1 for signed-in people. */
async function apiAreas(api: FastifyInstance, ctx: Context): Promise<void> {
  await workspaceRoutes(api, ctx);
  for (const register of apiModules) await register(api, ctx);
}

function flushLogs(stream: ReturnType<typeof pino.destination>): void {
  try {
    stream.flushSync();
  } catch {
    // not open yet or already closed: nothing is waiting
  }
}
