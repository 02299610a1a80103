/** Helpers shared by the MCP tests (not loaded by the service): the SDK's own client over Streamable HTTP. */
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Service } from '../../test/support/harness.ts';

export interface McpSession {
  client: Client;
  /** The tool's result as the client received it. */
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  /** The REST-shaped reply of a call that must succeed ({ data } or { data, pagination }). */
  ok(name: string, args?: Record<string, unknown>): Promise<any>;
  /** The spec's error body of a call that must fail as a tool error. */
  refused(name: string, args?: Record<string, unknown>): Promise<{ code: string; message: string; details: Array<{ field: string; message: string }> }>;
  close(): Promise<void>;
}

export function mcpTransport(service: Service, key: string | undefined, headers: Record<string, string> = {}): StreamableHTTPClientTransport {
  const authorization: Record<string, string> = key === undefined ? {} : { authorization: `Bearer ${key}` };
  return new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`), { requestInit: { headers: { ...authorization, ...headers } } });
}

export async function connect(service: Service, key: string, headers: Record<string, string> = {}): Promise<McpSession> {
  const client = new Client({ name: 'parley-test', version: '1.0.0' });
  await client.connect(mcpTransport(service, key, headers));
  const call = async (name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult;
  return {
    client,
    call,
    ok: async (name, args) => {
      const result = await call(name, args);
      assert.ok(!result.isError, `${name} failed: ${JSON.stringify(result.content)}`);
      const text = (result.content[0] as { text: string }).text;
      assert.deepEqual(JSON.parse(text), result.structuredContent, 'the text is the structured content');
      return result.structuredContent;
    },
    refused: async (name, args) => {
      const result = await call(name, args);
      assert.equal(result.isError, true, `${name} should have failed: ${JSON.stringify(result.content)}`);
      const body = JSON.parse((result.content[0] as { text: string }).text);
      assert.deepEqual(Object.keys(body), ['error']);
      assert.deepEqual(Object.keys(body.error).sort(), ['code', 'details', 'message']);
      return body.error;
    },
    close: () => client.close(),
  };
}

/** A raw JSON-RPC POST to /mcp, as an MCP client sends it after initializing. */
export async function rawMcp(service: Service, key: string | undefined, message: unknown, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; body: any }> {
  const response = await fetch(`${service.url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
      ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
      ...headers,
    },
    body: JSON.stringify(message),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: left as text
  }
  return { status: response.status, headers: response.headers, body };
}

export const listToolsMessage = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
