/**
 * Property-based tests of every operation of the public API (issue 10 §4):
 * generated and mutated requests, drawn from the schemas of the OpenAPI
 * document (itself generated from the zod schemas the routes validate with),
 * are sent to each operation the document lists, so a route added later is
 * covered without touching this file. Whatever is sent, the reply is never a
 * 5xx; a refusal is the spec's error body with the status of its code; a
 * success is a status the operation declares, whose body the checking
 * serializer has already parsed with its zod schema (checkResponses); and the
 * rate-limit headers are on every response.
 *
 * PARLEY_PROPERTY_REQUESTS (default 2000) is the whole run's budget of
 * requests, PARLEY_PROPERTY_SECONDS (default 25) its time limit, both shared
 * out over the operations; PARLEY_PROPERTY_SEED replays a reported failure.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc, { type Arbitrary } from 'fast-check';
import { startService, type SeededWorkspace, type Service } from '../../test/support/harness.ts';
import { seedAgent } from '../../test/support/seed-agent.ts';
import { ERROR_STATUS, type ErrorCode } from '../domain/errors.ts';
import { errorBody } from './schemas.ts';
import { mutated, oddValue, resolverOf, valid, type JsonSchema } from './schema-arbitraries.ts';

const REQUEST_BUDGET = Number(process.env.PARLEY_PROPERTY_REQUESTS ?? 2000);
const SECONDS_BUDGET = Number(process.env.PARLEY_PROPERTY_SECONDS ?? 25);
const SEED = process.env.PARLEY_PROPERTY_SEED === undefined ? undefined : Number(process.env.PARLEY_PROPERTY_SEED);
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema: JsonSchema;
}

interface Operation {
  method: string;
  /** As the document writes it, relative to /api/v1: /agents/{id}/sources/{sourceId}. */
  path: string;
  parameters: Parameter[];
  body: JsonSchema | undefined;
  statuses: Set<number>;
}

interface GeneratedRequest {
  key: string | undefined;
  path: string;
  query: string;
  body: { text: string; contentType: string | undefined } | undefined;
}

const service: Service = await startService({ workers: false, env: { PARLEY_RATE_LIMIT_PER_MINUTE: '100000000' } });
const document = (await service.api('GET', '/openapi.json')).body as JsonSchema;
const resolve = resolverOf(document);
const operations = operationsOf(document);
let ws: SeededWorkspace;
/** Real ids by path parameter name, so requests reach past the 404 into the rules. */
const ids: Record<string, string> = {};

before(async () => {
  ws = await service.seedWorkspace({ plan: 'enterprise' });
  await seedFixtures();
});
after(() => service.close());

/** The operations the document lists, each destructive one after every other (DELETE /agents/{id} last of all). */
function operationsOf(doc: JsonSchema): Operation[] {
  const found: Operation[] = [];
  for (const [path, item] of Object.entries<JsonSchema>(doc.paths ?? {})) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      found.push({
        method: method.toUpperCase(),
        path,
        parameters: [...(item.parameters ?? []), ...(operation.parameters ?? [])].map((parameter: JsonSchema) => resolverOf(doc)(parameter) as Parameter),
        body: operation.requestBody ? resolverOf(doc)(operation.requestBody).content?.['application/json']?.schema : undefined,
        statuses: new Set(Object.keys(operation.responses ?? {}).map(Number)),
      });
    }
  }
  const destructiveLast = (operation: Operation) => (operation.method === 'DELETE' ? 1_000 - operation.path.length : 0);
  return found.sort((a, b) => destructiveLast(a) - destructiveLast(b));
}

/** An agent with a text source, and a conversation when the chat route exists; made again when a DELETE took them. */
async function seedFixtures(): Promise<void> {
  if (!ids.id || (await service.api('GET', `/agents/${ids.id}`, { key: ws.keys.read })).status === 404) {
    ids.id = await seedAgent(service, ws, 'Property agent');
    delete ids.sourceId;
    delete ids.conversationId;
    delete ids.messageId;
  }
  if (!ids.sourceId || (await service.api('GET', `/agents/${ids.id}/sources/${ids.sourceId}`, { key: ws.keys.read })).status === 404) {
    const source = await service.api('POST', `/agents/${ids.id}/sources`, { key: ws.keys.manage, body: { type: 'text', title: 'Opening hours', content: 'We are open from nine to five.' } });
    if (source.status === 201) ids.sourceId = source.body.data.id;
  }
  if (!ids.conversationId || (await service.api('GET', `/agents/${ids.id}/conversations/${ids.conversationId}`, { key: ws.keys.read })).status === 404) {
    const chat = await service.api('POST', `/agents/${ids.id}/chat`, { key: ws.keys.manage, body: { message: 'When are you open?' } });
    if (chat.status === 200 || chat.status === 201) Object.assign(ids, { conversationId: chat.body.data.conversationId, messageId: chat.body.data.messageId });
  }
}

// ---------------------------------------------------------------- requests

function requestOf(operation: Operation): Arbitrary<GeneratedRequest> {
  return fc.record({
    key: keyArbitrary(),
    path: pathOf(operation),
    query: queryOf(operation),
    body: bodyOf(operation),
  });
}

/** Mostly the manage key, which may do everything; sometimes none, a malformed one or one of narrower scope. */
function keyArbitrary(): Arbitrary<string | undefined> {
  return fc.oneof(
    { arbitrary: fc.constant(ws.keys.manage), weight: 12 },
    { arbitrary: fc.constantFrom(undefined, 'cl_forged', ws.keys.read, ws.keys.chat), weight: 1 },
  );
}

function pathOf(operation: Operation): Arbitrary<string> {
  const params = operation.parameters.filter((parameter) => parameter.in === 'path');
  const values = Object.fromEntries(params.map((parameter) => [parameter.name, pathValueOf(operation, parameter)]));
  return fc.record(values).map((chosen) => operation.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeSegment(String(chosen[name]))));
}

function pathValueOf(operation: Operation, parameter: Parameter): Arbitrary<unknown> {
  const real = ids[parameter.name];
  const inKind = parameter.name === 'id' && !operation.path.startsWith('/agents/') ? undefined : real;
  return fc.oneof(
    { arbitrary: inKind ? fc.constant(inKind) : valid(parameter.schema, resolve, parameter.name), weight: 12 },
    { arbitrary: valid(parameter.schema, resolve, parameter.name), weight: 1 },
    { arbitrary: fc.constantFrom(`ag_${'x'.repeat(120)}`, '..', '%', '\u0000', 'x\udfff', ' ', '😀'), weight: 1 },
    { arbitrary: oddValue.map((value) => (typeof value === 'string' && value !== '' ? value : 'odd')), weight: 1 },
  );
}

function queryOf(operation: Operation): Arbitrary<string> {
  const params = operation.parameters.filter((parameter) => parameter.in === 'query');
  const model = Object.fromEntries(params.map((parameter) => [parameter.name, queryValueOf(parameter)]));
  const wellFormed = fc.record(model, { requiredKeys: params.filter((parameter) => parameter.required).map((parameter) => parameter.name) });
  return fc
    .oneof({ arbitrary: wellFormed, weight: 3 }, { arbitrary: mutated(wellFormed), weight: 1 })
    .map((query) => (isPlainObject(query) ? Object.entries(query).map(([name, value]) => `${encodeSegment(name)}=${encodeSegment(queryText(value))}`).join('&') : ''));
}

function queryValueOf(parameter: Parameter): Arbitrary<unknown> {
  if (parameter.name === 'cursor') return cursorArbitrary();
  return valid(parameter.schema, resolve, parameter.name);
}

/** Cursors as the service writes them, with times anywhere JavaScript can write one, and forged ones. */
function cursorArbitrary(): Arbitrary<string> {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const time = fc.date({ min: new Date(-8.64e15), max: new Date(8.64e15), noInvalidDate: true }).map((date) => date.toISOString());
  const id = fc.oneof(fc.constantFrom('src_abc', 'ag_x', 'conv_0'), fc.string({ unit: 'binary', maxLength: 12 }), fc.constant('src_a\u0000b'));
  return fc.oneof(
    fc.tuple(time, id).map(encode),
    fc.jsonValue({ maxDepth: 2 }).map(encode),
    fc.string({ maxLength: 30 }),
  );
}

function queryText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value) ?? '';
}

function bodyOf(operation: Operation): Arbitrary<GeneratedRequest['body']> {
  const json = (value: unknown) => ({ text: JSON.stringify(value) ?? 'null', contentType: 'application/json' });
  if (!operation.body) {
    if (operation.method === 'GET') return fc.constant(undefined);
    return fc.oneof({ arbitrary: fc.constant(undefined), weight: 6 }, { arbitrary: oddValue.map(json), weight: 1 });
  }
  const validBody = valid(operation.body, resolve);
  return fc.oneof(
    { arbitrary: validBody.map(json), weight: 6 },
    { arbitrary: mutated(validBody).map(json), weight: 3 },
    {
      arbitrary: fc.oneof(
        fc.constant(undefined),
        fc.constantFrom('', '{', '{"a":', 'null', '[]', '"text"', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{}}}').map((text) => ({ text, contentType: 'application/json' })),
        validBody.map((value) => ({ text: JSON.stringify(value), contentType: 'text/plain' })),
        validBody.map((value) => ({ text: JSON.stringify(value), contentType: undefined })),
      ),
      weight: 1,
    },
  );
}

/**
 * encodeURIComponent, except that a lone surrogate (which it refuses) is
 * written as the three bytes a lax encoder would send: invalid UTF-8 the
 * service must refuse.
 */
function encodeSegment(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (code >= 0xd800 && code <= 0xdfff) out += `%${(0xe0 | (code >> 12)).toString(16)}%${(0x80 | ((code >> 6) & 0x3f)).toString(16)}%${(0x80 | (code & 0x3f)).toString(16)}`.toUpperCase();
    else out += encodeURIComponent(char);
  }
  return out;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

// ---------------------------------------------------------------- replies

interface SentReply {
  status: number;
  headers: Headers;
  text: string;
}

async function send(operation: Operation, request: GeneratedRequest): Promise<SentReply> {
  const headers: Record<string, string> = {};
  if (request.key) headers.authorization = `Bearer ${request.key}`;
  if (request.body?.contentType) headers['content-type'] = request.body.contentType;
  const url = `${service.url}/api/v1${request.path}${request.query ? `?${request.query}` : ''}`;
  const response = await fetch(url, { method: operation.method, headers, body: request.body?.text });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** The rules every reply keeps, whatever was sent. */
function checkReply(operation: Operation, reply: SentReply): void {
  assert.ok(reply.status < 500, `a ${reply.status}: ${reply.text.slice(0, 500)}`);
  assert.match(reply.headers.get('x-request-id') ?? '', /^req_/);
  for (const header of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) assert.ok(reply.headers.get(header), `${header} is missing`);
  const contentType = reply.headers.get('content-type') ?? '';
  if (reply.status >= 400) {
    assert.match(contentType, /^application\/json/);
    const body = JSON.parse(reply.text);
    assert.deepEqual(Object.keys(body), ['error']);
    assert.deepEqual(Object.keys(body.error).sort(), ['code', 'details', 'message']);
    const parsed = errorBody.parse(body);
    assert.equal(ERROR_STATUS[parsed.error.code as ErrorCode], reply.status, `code ${parsed.error.code} with status ${reply.status}`);
    return;
  }
  assert.ok(operation.statuses.has(reply.status), `status ${reply.status} is not among the declared ${[...operation.statuses].join(', ')}`);
  // A stream (chat with stream: true) is not JSON; every JSON reply was parsed with its schema by the checking serializer.
  if (/^application\/json/.test(contentType)) assert.ok(isPlainObject(JSON.parse(reply.text)), 'a JSON reply is an object');
}

// ---------------------------------------------------------------- the tests

describe('odd input is never a 500: generated and mutated requests to every operation of the OpenAPI document', () => {
  test('the document lists the operations of the public API', () => {
    assert.ok(operations.length >= 10, `only ${operations.length} operations`);
    assert.ok(operations.some((operation) => operation.method === 'PATCH' && operation.path === '/agents/{id}'));
  });

  const runs = Math.max(20, Math.floor(REQUEST_BUDGET / Math.max(1, operations.length)));
  const timeLimit = Math.floor((SECONDS_BUDGET * 1000) / Math.max(1, operations.length));
  for (const operation of operations) {
    test(`${operation.method} ${operation.path}: no 5xx, the error body on refusals, declared replies, rate-limit headers`, async (t) => {
      await seedFixtures();
      const statuses = new Map<number, number>();
      const sendAndCheck = async (request: Parameters<typeof send>[1]) => {
        const reply = await send(operation, request);
        statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
        checkReply(operation, reply);
      };
      // One request before the time limit starts: an operation's first (its cold path) can take its whole share on a
      // loaded machine, and fast-check fails a property interrupted before any run.
      await sendAndCheck(fc.sample(requestOf(operation), { seed: SEED, numRuns: 1 })[0]!);
      await fc.assert(fc.asyncProperty(requestOf(operation), sendAndCheck), { numRuns: runs, seed: SEED, plugins: [fc.interruptAfterTimeLimit(timeLimit)] });
      const sent = [...statuses.values()].reduce((sum, count) => sum + count, 0);
      t.diagnostic(`${sent} requests; statuses ${[...statuses].sort(([a], [b]) => a - b).map(([status, count]) => `${status}: ${count}`).join(', ')}`);
    });
  }
});
