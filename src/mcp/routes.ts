import { readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Context } from '../context.ts';
import { keyCheck } from '../http/auth.ts';
import type { RouteCatalog } from './catalog.ts';
import { McpTools } from './definitions.ts';
import { TOOLS } from './tools.ts';

export const MCP_PATH = '/mcp';

const INSTRUCTIONS =
  'Parley hosts chat agents that answer visitors from their own material. These tools manage the agents, their sources, ' +
  'conversations, leads and tickets, and ask agents questions, with the rights of the API key in use. Most tools need an ' +
  "agent's id: find it with list_agents. A refused call returns the API's error body { error: { code, message, details } }.";

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/**
 * The MCP server (spec 1.6, operator contract "MCP server"): Streamable HTTP,
 * stateless, at /mcp. The key check is the API's own, before any MCP
 * handling, so a refused key, workspace or plan and the shared rate limit are
 * HTTP statuses with the spec's error body, and every request counts once
 * against the key's window.
 */
export async function mcpRoutes(app: FastifyInstance, ctx: Context, catalog: RouteCatalog): Promise<void> {
  const tools = new McpTools(ctx, catalog, TOOLS);
  const { countRequest, admit } = keyCheck(ctx);
  // The SDK would make an Ajv instance for each server; the tools never ask it to validate, so one is shared.
  const validator = new AjvJsonSchemaValidator();

  app.addHook('onRequest', async (request, reply) => {
    request.auth = admit(await countRequest(request, reply));
  });

  app.post(MCP_PATH, async (request, reply) => {
    const server = new Server({ name: 'parley', version: VERSION }, { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS, jsonSchemaValidator: validator });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.listFor(request.auth) }));
    server.setRequestHandler(CallToolRequestSchema, (call) => {
      if (!tools.has(call.params.name)) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${call.params.name}`);
      return tools.call({ auth: request.auth, requestId: request.id, name: call.params.name, args: call.params.arguments, log: request.log });
    });
    // Stateless: no session id, and one JSON reply instead of an event stream (no tool sends progress).
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    handOver(reply);
    reply.raw.on('close', () => void server.close());
    await transport.handleRequest(request.raw, reply.raw, request.body);
  });

  // Stateless: no stream to open and no session to end (what the SDK's stateless examples answer).
  const methodNotAllowed = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply.status(405).header('allow', 'POST').send({ jsonrpc: '2.0', error: { code: ErrorCode.ConnectionClosed, message: 'Method not allowed.' }, id: null });
  app.get(MCP_PATH, methodNotAllowed);
  app.delete(MCP_PATH, methodNotAllowed);
}

/** The transport writes the reply itself: the headers this request already has (request id, rate limit) go with it. */
function handOver(reply: FastifyReply): void {
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value);
  reply.hijack();
}
