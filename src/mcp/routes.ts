import { readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { MAX_BATCH_SIZE } from '@modelcontextprotocol/sdk/server/requestBody.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Context } from '../context.ts';
import { keyCheck, setLimitHeaders } from '../http/auth.ts';
import { errors } from '../domain/errors.ts';
import type { KeyCaller } from '../domain/principal.ts';
import type { LimitResult } from '../platform/limiter.ts';
import type { RouteCatalog } from './catalog.ts';
import { McpTools } from './definitions.ts';
import { TOOLS } from './tools.ts';

export const MCP_PATH = '/mcp';
/** /mcp is JSON-RPC beside the REST API, described by its own tools/list (docs/mcp.md), not by the REST API's OpenAPI document. */
const notInTheApiDocument = { schema: { hide: true } };

const INSTRUCTIONS =
  'Parley hosts chat agents that answer visitors from their own material. These tools manage the agents, their sources, ' +
  'conversations, leads and tickets, and ask agents questions, with the rights of the API key in use. Most tools need an ' +
  "agent's id: find it with list_agents. A refused call returns the API's error body { error: { code, message, details } }.";

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const SERVER_INFO = { name: 'parley', version: VERSION };
const CAPABILITIES = { tools: { listChanged: false } };

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
  const tools = new McpTools(ctx, catalog, TOOLS);
  const { countRequest, admit } = keyCheck(ctx);
  // The SDK would make an Ajv instance for each server; the tools never ask it to validate, so one is shared.
  const validator = new AjvJsonSchemaValidator();
  // The address the transport is shown: the service's own, not the Host header (which the host-name rule has judged).
  const origin = new URL(ctx.config.publicUrl).origin;

  app.addHook('onRequest', async (request, reply) => {
    request.auth = admit(await countRequest(request, reply));
  });

  app.post(MCP_PATH, notInTheApiDocument, async (request, reply) => {
    await countBatch(request, reply);
    const server = new Server(SERVER_INFO, { capabilities: CAPABILITIES, instructions: INSTRUCTIONS, jsonSchemaValidator: validator });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.listFor(keyOf(request)) }));
    server.setRequestHandler(CallToolRequestSchema, (call) => {
      if (!tools.has(call.params.name)) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${call.params.name}`);
      return tools.call({ auth: keyOf(request), requestId: request.id, name: call.params.name, args: call.params.arguments, log: request.log });
    });
    // Stateless: no session id, and one JSON reply instead of an event stream (no tool sends progress).
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    // A client that leaves before the answer: its handler is aborted. After a reply there is nothing to close (no stream,
    // no timer), and closing would cost an error object with its stack on every request.
    let answered = false;
    reply.raw.once('close', () => {
      if (!answered) void server.close();
    });
    const response = await transport.handleRequest(webRequestOf(request, origin), { parsedBody: request.body });
    const body = await response.text();
    answered = true;
    reply.status(response.status);
    response.headers.forEach((value, name) => void reply.header(name, value));
    return reply.send(body);
  });

  /**
   * The request was counted once on arrival; each further message of a batch is counted here. A batch over
   * what is left is 429 as a whole (the counts it took stay taken, as a refused single request's does).
   * Batches over the SDK's own bound (MAX_BATCH_SIZE) are refused by the transport, so they run nothing.
   */
  async function countBatch(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const messages = Array.isArray(request.body) ? request.body.length : 1;
    if (messages <= 1 || messages > MAX_BATCH_SIZE) return;
    const counted = await Promise.all(Array.from({ length: messages - 1 }, () => ctx.limiter.hit(keyOf(request).keyId)));
    setLimitHeaders(reply, lastOf(counted));
  }

  // Stateless: no stream to open and no session to end (what the SDK's stateless examples answer).
  const methodNotAllowed = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply.status(405).header('allow', 'POST').send({ jsonrpc: '2.0', error: { code: ErrorCode.ConnectionClosed, message: 'Method not allowed.' }, id: null });
  app.get(MCP_PATH, notInTheApiDocument, methodNotAllowed);
  app.delete(MCP_PATH, notInTheApiDocument, methodNotAllowed);
}

/** Of counts taken together, the one that came last: the fewest remaining, refused when any is. */
function lastOf(counted: LimitResult[]): LimitResult {
  return counted.find((result) => !result.allowed) ?? counted.reduce((last, result) => (result.remaining < last.remaining ? result : last));
}

/**
 * The request as the SDK's web-standard transport reads it: method, address
 * and headers. The body is not copied: Fastify has parsed it (within its body
 * limit) and the transport takes it as `parsedBody`.
 */
function webRequestOf(request: FastifyRequest, origin: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const item of value) headers.append(name, item);
  }
  return new Request(`${origin}${request.url}`, { method: request.method, headers });
}

/** The MCP server is for keys only: its hook admits nothing else. */
function keyOf(request: FastifyRequest): KeyCaller {
  if (request.auth.kind !== 'key') throw errors.unauthorized();
  return request.auth;
}
