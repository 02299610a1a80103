import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
// The JSON Schema 2020-12 dialect OpenAPI 3.1 uses; ajv comes with Fastify (no OpenAPI validator is installed).
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { startService, type SeededWorkspace, type Service } from '../../test/support/harness.ts';
import { seedAgent } from '../../test/support/seed-agent.ts';
import { compileEverySerializer } from './serializer.ts';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

let service: Service;
let ws: SeededWorkspace;
let doc: any;
before(async () => {
  service = await startService({ workers: false });
  ws = await service.seedWorkspace();
  const response = await fetch(`${service.url}/api/v1/openapi.json`);
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
  doc = await response.json();
});
after(() => service.close());

function operations(): Array<{ path: string; method: string; op: any }> {
  return Object.entries(doc.paths).flatMap(([path, item]: [string, any]) =>
    METHODS.filter((m) => item[m]).map((method) => ({ path, method, op: item[method] })),
  );
}

/** Every { $ref } anywhere in the document, with where it was found. */
function refsIn(node: unknown, where = '#'): Array<{ ref: string; where: string }> {
  if (Array.isArray(node)) return node.flatMap((child, i) => refsIn(child, `${where}/${i}`));
  if (!node || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([k, v]) => (k === '$ref' && typeof v === 'string' ? [{ ref: v, where }] : refsIn(v, `${where}/${k}`)));
}

function resolvePointer(pointer: string): unknown {
  if (!pointer.startsWith('#/')) return undefined;
  return pointer
    .slice(2)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<any>((node, part) => (node && typeof node === 'object' ? node[part] : undefined), doc);
}

function schemaValidator() {
  const ajv = new Ajv2020({ strict: true, allErrors: true, validateFormats: false });
  for (const keyword of ['example', 'discriminator', 'xml', 'externalDocs']) ajv.addKeyword(keyword);
  const toDefs = (schema: unknown) => JSON.parse(JSON.stringify(schema).replaceAll('"$ref":"#/components/schemas/', '"$ref":"#/$defs/'));
  const $defs = toDefs(doc.components.schemas);
  /** A JSON schema from the document, its #/components/schemas refs carried along as $defs. */
  return (schema: unknown) => ajv.compile({ ...toDefs(schema), $defs });
}

describe('GET /api/v1/openapi.json', () => {
  test('is an OpenAPI 3.1.0 document with info, servers under /api/v1 and the bearer key scheme', () => {
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(typeof doc.info.title, 'string');
    assert.equal(typeof doc.info.version, 'string');
    assert.match(doc.servers[0].url, /\/api\/v1$/);
    const scheme = doc.components.securitySchemes[Object.keys(doc.security[0])[0]];
    assert.deepEqual({ type: scheme.type, scheme: scheme.scheme }, { type: 'http', scheme: 'bearer' });
  });

  test('is served without a key', async () => {
    const response = await fetch(`${service.url}/api/v1/openapi.json`);
    assert.equal(response.status, 200);
  });

  test('has the paths of the workspace area, relative to the server URL', () => {
    for (const path of ['/workspace', '/models', '/setup-guide']) assert.ok(doc.paths[path]?.get, `GET ${path} missing`);
    for (const path of Object.keys(doc.paths)) {
      assert.match(path, /^\//);
      assert.doesNotMatch(path, /^\/(api|admin)\//, 'neither the prefix nor the operator API is in the document');
    }
  });

  test('describes the agent object when the agents area exists', (t) => {
    if (!doc.paths['/agents']) return t.skip('no /agents routes yet');
    assert.ok(doc.paths['/agents'].get && doc.paths['/agents'].post);
    assert.ok(doc.components.schemas.Agent, 'components.schemas.Agent');
    assert.ok(doc.components.schemas.Agent.properties.id);
  });

  test('every operation has responses with a description, JSON content and the error body for errors', () => {
    for (const { path, method, op } of operations()) {
      const name = `${method.toUpperCase()} ${path}`;
      assert.ok(op.responses && Object.keys(op.responses).length > 0, `${name} has no responses`);
      assert.ok(Object.keys(op.responses).some((status) => /^2\d\d$/.test(status)), `${name} has no success response`);
      for (const [status, response] of Object.entries<any>(op.responses)) {
        assert.match(status, /^([1-5]\d\d|[1-5]XX|default)$/, `${name} response ${status}`);
        assert.equal(typeof response.description, 'string', `${name} ${status} has no description`);
        if (/^[45]/.test(status)) assert.equal(response.content['application/json'].schema.$ref, '#/components/schemas/Error', `${name} ${status}`);
      }
      for (const status of ['401', '403', '429']) assert.ok(op.responses[status], `${name} documents ${status}`);
    }
  });

  test('every path parameter is declared, required and in the path', () => {
    for (const { path, method, op } of operations()) {
      const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      const parameters = [...(doc.paths[path].parameters ?? []), ...(op.parameters ?? [])].map((p: any) => (p.$ref ? resolvePointer(p.$ref) : p));
      const inPath = parameters.filter((p: any) => p.in === 'path');
      assert.deepEqual(inPath.map((p: any) => p.name).sort(), [...templated].sort(), `${method} ${path}`);
      for (const p of inPath) assert.equal(p.required, true, `${method} ${path} {${p.name}}`);
      for (const p of parameters) {
        assert.match(p.in, /^(path|query|header|cookie)$/);
        assert.equal(typeof p.name, 'string');
        assert.ok(p.schema || p.content, `${method} ${path} parameter ${p.name} has no schema`);
      }
      const names = parameters.map((p: any) => `${p.in}:${p.name}`);
      assert.equal(new Set(names).size, names.length, `${method} ${path} repeats a parameter`);
      if (op.requestBody) assert.ok(op.requestBody.content?.['application/json']?.schema, `${method} ${path} body`);
    }
  });

  test('operation ids, where given, are unique', () => {
    const ids = operations()
      .map(({ op }) => op.operationId)
      .filter(Boolean);
    assert.equal(new Set(ids).size, ids.length);
  });

  test('every $ref resolves inside the document', () => {
    const refs = refsIn(doc);
    assert.ok(refs.length > 0);
    for (const { ref, where } of refs) assert.ok(resolvePointer(ref) !== undefined, `${ref} at ${where} does not resolve`);
    for (const name of Object.keys(doc.components.schemas)) assert.match(name, /^[a-zA-Z0-9._-]+$/);
  });

  test('every schema in the document is valid JSON Schema 2020-12', () => {
    const compile = schemaValidator();
    for (const [name, schema] of Object.entries(doc.components.schemas)) assert.doesNotThrow(() => compile(schema), `components.schemas.${name}`);
    for (const { path, method, op } of operations()) {
      const schemas = [
        ...Object.values<any>(op.responses).map((r) => r.content?.['application/json']?.schema),
        op.requestBody?.content?.['application/json']?.schema,
        ...(op.parameters ?? []).map((p: any) => p.schema),
      ].filter(Boolean);
      for (const schema of schemas) assert.doesNotThrow(() => compile(schema), `${method} ${path}`);
    }
  });

  test('every example in the document is a value the API accepts: its schema\'s own bounds, enum, pattern, format and lengths', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    const toDefs = (schema: unknown) => JSON.parse(JSON.stringify(schema).replaceAll('"$ref":"#/components/schemas/', '"$ref":"components#/$defs/'));
    ajv.addSchema({ $id: 'components', $defs: toDefs(doc.components.schemas) });
    const found = examplesIn(doc);
    assert.ok(found.length > 100, `only ${found.length} examples`);
    for (const { schema, example, where } of found) {
      const { examples: _examples, example: _example, ...own } = schema;
      const check = ajv.compile(toDefs(own));
      assert.ok(check(example), `${where}: ${JSON.stringify(example)} breaks ${JSON.stringify(own)}: ${ajv.errorsText(check.errors)}`);
    }
  });

  test('every number carries its example and no ±2^53 bounds, so the reference at /docs never makes one up from them', () => {
    const numbers = schemasIn(doc).filter(({ schema }) => schema.type === 'integer' || schema.type === 'number');
    assert.ok(numbers.length > 50);
    for (const { schema, where } of numbers) {
      assert.ok('examples' in schema || 'enum' in schema || 'const' in schema, `${where} has no example`);
      assert.ok(Math.abs(schema.minimum ?? 0) < Number.MAX_SAFE_INTEGER && Math.abs(schema.maximum ?? 0) < Number.MAX_SAFE_INTEGER, `${where}: ${JSON.stringify(schema)}`);
    }
    const limit = doc.paths['/agents/{id}/sources'].get.parameters.find((p: any) => p.name === 'limit').schema;
    assert.deepEqual(limit.examples, [1]);
  });

  test('every response schema of every route compiles to its serializer (tests compile each at its first response, as production does)', () => {
    assert.ok(compileEverySerializer() > 0);
  });

  test('response schemas admit fields a later version adds (spec 9.3); request bodies stay strict', () => {
    const closedObjects = (node: unknown): number =>
      !node || typeof node !== 'object' ? 0 : Number((node as any).additionalProperties === false) + Object.values(node).reduce<number>((n, child) => n + closedObjects(child), 0);
    for (const { path, method, op } of operations()) assert.equal(closedObjects(op.responses), 0, `${method} ${path} responses`);
    for (const [name, schema] of Object.entries(doc.components.schemas)) if (!name.endsWith('Input')) assert.equal(closedObjects(schema), 0, name);
    const createAgent = doc.paths['/agents']?.post?.requestBody?.content['application/json'].schema;
    if (createAgent) assert.equal(createAgent.additionalProperties, false, 'POST /agents body is strict');
  });

  test('real replies of the workspace area match the document', async () => {
    const compile = schemaValidator();
    const tied = await ws.addKey('read', await seedAgent(service, ws));
    const cases: Array<[string, string, number]> = [
      ['/workspace', ws.keys.read, 200],
      ['/models', ws.keys.read, 200],
      ['/setup-guide', ws.keys.read, 200],
      ['/setup-guide?useCase=docs', tied.key, 200],
      ['/setup-guide?useCase=nonsense', ws.keys.read, 400],
      ['/workspace', ws.keys.chat, 403],
      ['/models', '', 401],
    ];
    for (const [path, key, status] of cases) {
      const reply = await service.api('GET', path, { key: key || undefined });
      assert.equal(reply.status, status, path);
      const schema = doc.paths[path.split('?')[0]].get.responses[String(status)].content['application/json'].schema;
      const validate = compile(schema);
      assert.ok(validate(reply.body), `${path} ${status}: ${JSON.stringify(validate.errors)}`);
    }
  });
});

/** Every object in the document that is a schema by its type, with where it was found. */
function schemasIn(node: unknown, where = '#'): Array<{ schema: any; where: string }> {
  if (Array.isArray(node)) return node.flatMap((child, i) => schemasIn(child, `${where}/${i}`));
  if (!node || typeof node !== 'object') return [];
  const own = typeof (node as any).type === 'string' || Array.isArray((node as any).type) ? [{ schema: node, where }] : [];
  return [...own, ...Object.entries(node).flatMap(([k, v]) => schemasIn(v, `${where}/${k}`))];
}

/** Every example (examples[] or example) anywhere in the document, with the schema that holds it. */
function examplesIn(node: unknown, where = '#'): Array<{ schema: any; example: unknown; where: string }> {
  if (Array.isArray(node)) return node.flatMap((child, i) => examplesIn(child, `${where}/${i}`));
  if (!node || typeof node !== 'object') return [];
  const object = node as any;
  const own = [...(Array.isArray(object.examples) ? object.examples : []), ...('example' in object ? [object.example] : [])].map((example) => ({ schema: object, example, where }));
  const children = Object.entries(object).filter(([k]) => k !== 'examples' && k !== 'example');
  return [...own, ...children.flatMap(([k, v]) => examplesIn(v, `${where}/${k}`))];
}
