import { readFileSync } from 'node:fs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { MAX_BATCH_SIZE } from '@modelcontextprotocol/sdk/server/requestBody.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Context } from '../context.ts';
import type { RouteCatalog } from './catalog.ts';
import { McpTools } from './definitions.ts';
import { keyOf } from './routes.ts';
import { TOOLS } from './tools.ts';

const INSTRUCTIONS =
  'Parley hosts chat agents that answer visitors from their own material. These tools manage the agents, their sources, ' +
  'conversations, leads and tickets, and ask agents questions, with the rights of the API key in use. Most tools need an ' +
  "agent's id: find it with list_agents. A refused call returns the API's error body { error: { code, message, details } }.";

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const SERVER_INFO = { name: 'parley', version: VERSION };
const CAPABILITIES = { tools: { listChanged: false } };

/** What src/mcp/routes.ts takes from the SDK, once the first /mcp request has loaded it. */
export interface McpServer {
  /** The SDK's bound on a batch's messages: a larger batch is refused by the transport, so it runs nothing. */
  maxBatchSize: number;
  /** The JSON-RPC code of the reply to GET and DELETE. */
  connectionClosed: number;
  answer(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply>;
}

/** The tools (their JSON Schemas, validators and serializers) and the SDK's server, made at the first /mcp request. */
export function mcpServer(ctx: Context, catalog: RouteCatalog): McpServer {
  const tools = new McpTools(ctx, catalog, TOOLS);
  // The SDK would make an Ajv instance for each server; the tools never ask it to validate, so one is shared.
  const validator = new AjvJsonSchemaValidator();
  // The address the transport is shown: the service's own, not the Host header (which the host-name rule has judged).
  const origin = new URL(ctx.config.publicUrl).origin;

  async function answer(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
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
  }

  return { maxBatchSize: MAX_BATCH_SIZE, connectionClosed: ErrorCode.ConnectionClosed, answer };
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
