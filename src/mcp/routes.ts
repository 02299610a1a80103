import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../context.ts';
import { keyCheck, setLimitHeaders } from '../http/auth.ts';
import { errors } from '../domain/errors.ts';
import type { KeyCaller } from '../domain/principal.ts';
import { firstUse } from '../platform/first-use.ts';
import type { LimitResult } from '../platform/limiter.ts';
import type { RouteCatalog } from './catalog.ts';
import type { McpServer } from './server.ts';
import { TOOLS } from './tools.ts';

export const MCP_PATH = '/mcp';
/** /mcp is JSON-RPC beside the REST API, described by its own tools/list (docs/mcp.md), not by the REST API's OpenAPI document. */
const notInTheApiDocument = { schema: { hide: true } };

/**
 * The MCP server (spec 1.6, operator contract "MCP server"): Streamable HTTP,
 * stateless, at /mcp. The key check is the API's own, before any MCP
 * handling, so a refused key, workspace or plan and the shared rate limit are
 * HTTP statuses with the spec's error body, and every JSON-RPC message
 * counts once against the key's window: a batch of n messages (protocol
 * 2025-03-26, which the SDK still takes) counts n, and a batch the window has
 * no room for is refused whole, before any of its calls runs.
 */
export async function mcpRoutes(app: FastifyInstance, ctx: Context, catalog: RouteCatalog): Promise<void> {
  checkToolTable(catalog);
  // The MCP SDK and the tools' JSON Schemas, validators and serializers are made by the first /mcp request (docs/performance.md, Memory).
  const server = firstUse(async () => (await import('./server.ts')).mcpServer(ctx, catalog));
  const { countRequest, admit } = keyCheck(ctx);

  app.addHook('onRequest', async (request, reply) => {
    request.auth = admit(await countRequest(request, reply));
  });

  app.post(MCP_PATH, notInTheApiDocument, async (request, reply) => {
    const mcp = await server();
    await countBatch(request, reply, mcp);
    return mcp.answer(request, reply);
  });

  /**
   * The request was counted once on arrival; each further message of a batch is counted here. A batch over
   * what is left is 429 as a whole (the counts it took stay taken, as a refused single request's does).
   * Batches over the SDK's own bound (MAX_BATCH_SIZE) are refused by the transport, so they run nothing.
   */
  async function countBatch(request: FastifyRequest, reply: FastifyReply, mcp: McpServer): Promise<void> {
    const messages = Array.isArray(request.body) ? request.body.length : 1;
    if (messages <= 1 || messages > mcp.maxBatchSize) return;
    const counted = await Promise.all(Array.from({ length: messages - 1 }, () => ctx.limiter.hit(keyOf(request).keyId)));
    setLimitHeaders(reply, lastOf(counted));
  }

  // Stateless: no stream to open and no session to end (what the SDK's stateless examples answer).
  const methodNotAllowed = async (_request: FastifyRequest, reply: FastifyReply) => {
    const { connectionClosed } = await server();
    return reply.status(405).header('allow', 'POST').send({ jsonrpc: '2.0', error: { code: connectionClosed, message: 'Method not allowed.' }, id: null });
  };
  app.get(MCP_PATH, notInTheApiDocument, methodNotAllowed);
  app.delete(MCP_PATH, notInTheApiDocument, methodNotAllowed);
}

/** A tool named twice or naming a route the API does not have fails the start, as when the tools were made at start-up. */
function checkToolTable(catalog: RouteCatalog): void {
  const names = new Set<string>();
  for (const spec of TOOLS) {
    if (names.has(spec.name)) throw new Error(`Two MCP tools are named ${spec.name}`);
    names.add(spec.name);
    catalog.route(spec.route);
  }
}

/** Of counts taken together, the one that came last: the fewest remaining, refused when any is. */
function lastOf(counted: LimitResult[]): LimitResult {
  return counted.find((result) => !result.allowed) ?? counted.reduce((last, result) => (result.remaining < last.remaining ? result : last));
}

/** The MCP server is for keys only: its hook admits nothing else. */
export function keyOf(request: FastifyRequest): KeyCaller {
  if (request.auth.kind !== 'key') throw errors.unauthorized();
  return request.auth;
}
