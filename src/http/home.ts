/**
 * What the service answers at its root without a key: a small front page, the
 * health of its stores, and the API reference at /docs (Scalar's renderer of
 * /api/v1/openapi.json, its script served from the installed package so the
 * page works offline), in Dutch at /docs/nl (/api/v1/openapi.nl.json).
 */
import { readFile } from 'node:fs/promises';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Context } from '../context.ts';

import { addLanguageSwitch, DOCS_PATH, DUTCH_DOCS_PATH, OPENAPI_PATH, REFERENCES } from './docs-languages.ts';

export { DOCS_PATH, OPENAPI_PATH } from './docs-languages.ts';

const STORE_CHECK_TIMEOUT_MS = 2_000;

type StoreStatus = 'up' | 'down';

export interface Health {
  status: 'ok' | 'degraded';
  version: string;
  database: { kind: 'embedded' | 'postgres'; status: StoreStatus };
  redis: { status: StoreStatus | 'not_configured' };
}

export async function homeRoutes(app: FastifyInstance, ctx: Context): Promise<void> {
  const version = await serviceVersion();
  const hidden = { schema: { hide: true } };
  app.get('/', hidden, async (_request, reply) => reply.type('text/html; charset=utf-8').send(frontPage(version)));
  app.get('/health', hidden, async (_request, reply) => {
    const health = await checkHealth(ctx, version);
    // A load balancer reads the status code: 503 takes this process out while a store it needs is down.
    return reply.status(health.status === 'ok' ? 200 : 503).send({ data: health });
  });
  docsRoutes(app);
}

/**
 * The reference at /docs: Scalar's plugin in a small app of its own, built at the first
 * request for it and answering through inject. Its page and script (some 30 MB resident)
 * are not held by a process nobody asks for the reference.
 */
function docsRoutes(app: FastifyInstance): void {
  let built: Promise<FastifyInstance> | undefined;
  const forward = async (request: FastifyRequest, reply: FastifyReply) => {
    built ??= buildDocsApp().catch((error: unknown) => {
      built = undefined;
      throw error;
    });
    const response = await (await built).inject({ method: 'GET', url: request.url, headers: request.headers });
    const { 'content-length': _length, 'transfer-encoding': _encoding, connection: _connection, date: _date, ...headers } = response.headers;
    const textual = /^(text\/|application\/(javascript|json))/.test(String(headers['content-type'] ?? ''));
    return reply.status(response.statusCode).headers(headers).send(textual ? response.payload : response.rawPayload);
  };
  app.get(DOCS_PATH, { schema: { hide: true } }, forward);
  app.get(`${DOCS_PATH}/*`, { schema: { hide: true, params: z.strictObject({ '*': z.string() }) } }, forward);
}

async function buildDocsApp(): Promise<FastifyInstance> {
  const { default: apiReference } = await import('@scalar/fastify-api-reference');
  const docs = Fastify({ logger: false, routerOptions: { ignoreTrailingSlash: true } });
  addLanguageSwitch(docs);
  // One page per language (src/http/docs-languages.ts), each in a scope of its own: /docs and /docs/nl.
  for (const reference of REFERENCES) {
    await docs.register(async (scope) =>
      scope.register(apiReference, {
        routePrefix: reference.prefix,
        configuration: {
          url: reference.document,
          pageTitle: reference.pageTitle,
          // Everything the page needs comes from this service: no web fonts, telemetry or Scalar services.
          withDefaultFonts: false,
          telemetry: false,
          showDeveloperTools: 'never',
          hideClientButton: true,
          mcp: { disabled: true },
        },
      }),
    );
  }
  await docs.ready();
  return docs;
}

export async function checkHealth(ctx: Context, version: string): Promise<Health> {
  const [database, redis] = await Promise.all([
    answersWithin(ctx.database.executeSql('select 1')),
    ctx.redis ? answersWithin(ctx.redis.client.ping()) : undefined,
  ]);
  const redisStatus = redis === undefined ? 'not_configured' : statusOf(redis);
  return {
    status: database && redis !== false ? 'ok' : 'degraded',
    version,
    database: { kind: ctx.database.kind, status: statusOf(database) },
    redis: { status: redisStatus },
  };
}

function statusOf(answered: boolean): StoreStatus {
  return answered ? 'up' : 'down';
}

/** Whether the store answered in time; a store that hangs (a dropped network) counts as down. */
async function answersWithin(check: Promise<unknown>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), STORE_CHECK_TIMEOUT_MS)));
  try {
    return await Promise.race([check.then(() => true, () => false), late]);
  } finally {
    clearTimeout(timer);
  }
}

async function serviceVersion(): Promise<string> {
  const manifest = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return manifest.version;
}

function frontPage(version: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Parley ${version}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#1f2937}code{background:#f3f4f6;padding:0 .25rem}</style>
</head>
<body>
<h1>Parley</h1>
<p>A self-hostable chat agent service. Version <code>${version}</code>.</p>
<ul>
<li><a href="${DOCS_PATH}/">API reference</a>: every endpoint of the REST API under <code>/api/v1</code> (<a href="${DUTCH_DOCS_PATH}/" hreflang="nl" lang="nl">in het Nederlands</a>)</li>
<li><a href="${OPENAPI_PATH}">OpenAPI document</a> (<code>${OPENAPI_PATH}</code>)</li>
<li><a href="/health">Health</a>: the state of the database and Redis</li>
</ul>
<p>Requests to <code>/api/v1</code> need an API key (<code>Authorization: Bearer cl_…</code>); workspaces and keys are made with <code>npx parley admin</code>.</p>
</body>
</html>
`;
}
