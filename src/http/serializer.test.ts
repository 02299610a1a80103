import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { checkingSerializer, compiledSerializer } from './serializer.ts';

const schema = z.object({ id: z.string(), nested: z.object({ count: z.number().int() }).nullable() });
const route = { schema, method: 'GET', url: '/things/:id', httpStatus: '200' };

describe('response serializers (http/serializer.ts)', () => {
  test('the compiled serializer writes only the fields the schema declares', () => {
    const write = compiledSerializer(route);
    assert.equal(write({ id: 't_1', nested: { count: 2, secret: 'x' }, fingerprint: 'abc' }), '{"id":"t_1","nested":{"count":2}}');
    assert.equal(write({ id: 't_2', nested: null }), '{"id":"t_2","nested":null}');
  });

  test('the compiled serializer picks the branch of a union for an object carrying extra fields', () => {
    const write = compiledSerializer({
      ...route,
      schema: z.object({ item: z.union([z.object({ kind: z.literal('text'), text: z.string() }), z.object({ kind: z.literal('qa'), question: z.string() })]) }),
    });
    assert.equal(write({ item: { kind: 'qa', question: 'Why?', internal: 1 } }), '{"item":{"kind":"qa","question":"Why?"}}');
  });

  test('the checking serializer refuses a response that breaks its schema', () => {
    const write = checkingSerializer(route);
    assert.equal(write({ id: 't_1', nested: null }), '{"id":"t_1","nested":null}');
    assert.throws(() => write({ id: 't_1', nested: { count: 'two' } }), /breaks its schema/);
  });
});
