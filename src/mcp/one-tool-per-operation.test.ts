import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { startService, type Service } from '../../test/support/harness.ts';
import { removeClosedObjects } from '../http/openapi.ts';
import { withSingleTypes } from './definitions.ts';
import { TOOLS, type ToolSpec } from './tools.ts';
import { connect } from './test-support.ts';

type Json = Record<string, any>;

/**
 * Spec 1.6 and the issue: one tool per operation of the public API, none for
 * webhooks, each taking the operation's own path, query or body fields and
 * answering its reply. The operations and their schemas are read from the
 * API's OpenAPI document (GET /api/v1/openapi.json), which is written from the
 * routes' zod schemas; the tools from tools/list. A tool whose schema were a
 * copy that drifted, or an operation added without its tool, fails here.
 */
describe('one MCP tool per API operation, with the operation\'s own schemas (spec 1.6)', () => {
  let service: Service;
  let document: Json;
  let tools: Tool[];

  before(async () => {
    service = await startService({ workers: false });
    const ws = await service.seedWorkspace({ plan: 'enterprise' });
    document = (await service.api('GET', '/openapi.json', { key: ws.keys.read })).body;
    const session = await connect(service, ws.keys.manage);
    tools = (await session.client.listTools()).tools;
    await session.close();
  });
  after(async () => service?.close());

  const operationOf = (spec: ToolSpec) => {
    const [method, path] = spec.route.split(' ') as [string, string];
    return { key: `${method} ${path.replace(/:(\w+)/g, '{$1}')}`, operation: document.paths[path.replace(/:(\w+)/g, '{$1}')]?.[method.toLowerCase()] as Json | undefined };
  };
  const toolNamed = (name: string) => tools.find((tool) => tool.name === name)!;
  /** A JSON Schema with every $ref replaced by what it names (in the document's components, or the schema's own $defs). */
  const resolved = (node: unknown, named: Json = document.components.schemas): any => {
    if (Array.isArray(node)) return node.map((item) => resolved(item, named));
    if (!node || typeof node !== 'object') return node;
    // The document's examples are for its readers; a tool's schema carries none.
    const { $ref, $defs, examples: _examples, ...rest } = node as Json;
    if ($defs) return resolved(rest, { ...named, ...$defs });
    if (typeof $ref === 'string') return resolved(named[$ref.split('/').pop()!], named);
    // The document writes a literal as a one-value enum, MCP's JSON Schema as const.
    if ('const' in rest) {
      const { const: value, ...others } = rest;
      return resolved({ ...others, enum: [value] }, named);
    }
    return Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, resolved(value, named)]));
  };
  /** The operation's input as one flat object schema: path and query parameters and the body's fields (of the tool's branch). */
  const expectedInput = (spec: ToolSpec, operation: Json) => {
    const properties: Json = {};
    const required: string[] = [];
    for (const parameter of operation.parameters ?? []) {
      properties[parameter.name] = resolved({ ...parameter.schema, ...(parameter.description ? { description: parameter.description } : {}) });
      if (parameter.required) required.push(parameter.name);
    }
    let body = resolved(operation.requestBody?.content['application/json'].schema);
    if (spec.variant) body = body.oneOf.find((branch: Json) => branch.properties.type.enum?.[0] === spec.variant);
    for (const [name, schema] of Object.entries<Json>(body?.properties ?? {})) {
      if (name === 'type' && spec.variant) continue;
      if (spec.omit?.includes(name)) continue;
      properties[name] = schema;
      if (body.required?.includes(name)) required.push(name);
    }
    return { properties, required: required.sort() };
  };

  test('every operation but the webhooks\' is a tool; no tool is about webhooks', () => {
    const operations = Object.entries<Json>(document.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`));
    const served = new Set(TOOLS.map((spec) => operationOf(spec).key));
    for (const operation of operations) {
      if (operation.split(' ')[1]!.startsWith('/webhooks')) assert.ok(!served.has(operation), `${operation} has no tool`);
      else assert.ok(served.has(operation), `${operation} has a tool`);
    }
    for (const spec of TOOLS) assert.ok(operationOf(spec).operation, `${spec.name}: ${spec.route} is an operation of the API`);
    assert.ok(operations.some((operation) => operation.includes('/webhooks')), 'the document has the webhook operations the tools leave out');
  });

  test('each tool\'s input is the operation\'s parameters and body fields, field for field, strict', () => {
    for (const spec of TOOLS) {
      const { operation } = operationOf(spec);
      const input = toolNamed(spec.name).inputSchema as Json;
      const expected = expectedInput(spec, operation!);
      assert.deepEqual(Object.keys(input.properties ?? {}).sort(), Object.keys(expected.properties).sort(), `${spec.name}: the fields`);
      for (const [name, schema] of Object.entries<Json>(input.properties ?? {})) {
        // A path parameter is described to the model; its constraints are the route's.
        const { description: _toolWords, ...constraints } = schema;
        // A tool writes a nullable type as anyOf branches of one type each (definitions.ts).
        const { description: _apiWords, ...apiConstraints } = withSingleTypes(expected.properties[name]) as Json;
        assert.deepEqual(constraints, apiConstraints, `${spec.name}.${name}`);
      }
      assert.deepEqual([...(input.required ?? [])].sort(), expected.required, `${spec.name}: the required fields`);
      assert.equal(input.additionalProperties, false, `${spec.name} refuses unknown fields`);
    }
    // The one field a tool leaves out (docs/mcp.md): a tool result comes in one piece.
    assert.deepEqual(TOOLS.filter((spec) => spec.omit).map((spec) => [spec.name, spec.omit]), [['ask_agent', ['stream']]]);
  });

  test('each tool\'s output schema is the operation\'s success reply', () => {
    for (const spec of TOOLS) {
      const { operation } = operationOf(spec);
      const [status, reply] = Object.entries<Json>(operation!.responses).find(([code]) => /^2\d\d$/.test(code))!;
      const expected = withSingleTypes(resolved(reply.content['application/json'].schema)) as Json;
      const output = resolved(toolNamed(spec.name).outputSchema, {});
      removeClosedObjects(output);
      removeClosedObjects(expected);
      assert.deepEqual(output, expected, `${spec.name}: the ${status} reply`);
    }
  });
});
