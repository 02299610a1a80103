import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { validatorCompiler } from 'fastify-type-provider-zod';
import type { RouteOptions } from 'fastify';
import { ApiError } from '../domain/errors.ts';
import { rejectingUnstorableText, requireDeclaredParams } from './text-guard.ts';

const validate = (httpPart: string, schema: z.ZodType) =>
  rejectingUnstorableText(validatorCompiler)({ schema, httpPart, method: 'POST', url: '/things/:id' }) as (data: unknown) => { error?: Error; value?: unknown };

describe('text the database cannot store (http/text-guard.ts)', () => {
  test('a part holding U+0000 is refused before its schema, naming the field, or the part for a bare value', () => {
    const { error } = validate('body', z.strictObject({ name: z.string() }))({ name: 'Ac\0me', unknown: 1 });
    assert.ok(error instanceof ApiError);
    assert.equal(error.code, 'invalid_request');
    assert.deepEqual(error.details.map((detail) => detail.field), ['name']);
    const nested = validate('body', z.object({ items: z.array(z.object({ text: z.string() })) }))({ items: [{ text: 'ok' }, { text: 'b\0d' }] });
    assert.deepEqual((nested.error as ApiError).details.map((detail) => detail.field), ['items.1.text']);
    const params = validate('params', z.object({ id: z.string() }))({ id: 'ag_\0' });
    assert.deepEqual((params.error as ApiError).details.map((detail) => detail.field), ['id']);
  });

  test('a part holding a lone UTF-16 surrogate is refused the same way, in values and keys, nested or bare', () => {
    for (const text of ['x\udfffy', 'x\ud800', '\udc00\ud800']) {
      const { error } = validate('body', z.strictObject({ name: z.string() }))({ name: text });
      assert.ok(error instanceof ApiError);
      assert.deepEqual(error.details.map((detail) => detail.field), ['name']);
      assert.match(error.message, /surrogate/);
    }
    const nested = validate('body', z.object({ excludePaths: z.array(z.string()) }))({ excludePaths: ['/ok', '/b\udfffd'] });
    assert.deepEqual((nested.error as ApiError).details.map((detail) => detail.field), ['excludePaths.1']);
    const key = validate('body', z.record(z.string(), z.string()))({ ['k\ud800']: 'v' });
    assert.deepEqual((key.error as ApiError).details.map((detail) => detail.field), ['k\ud800']);
    const query = validate('querystring', z.string())('x\udfff');
    assert.deepEqual((query.error as ApiError).details.map((detail) => detail.field), ['query']);
  });

  test('a surrogate pair (an emoji) is well-formed text and goes on to its schema', () => {
    assert.deepEqual(validate('body', z.strictObject({ name: z.string() }))({ name: 'Hi 😀 \ud83d\ude00' }), { value: { name: 'Hi 😀 😀' } });
  });

  test('a part without U+0000 goes on to its schema', () => {
    assert.deepEqual(validate('querystring', z.strictObject({ useCase: z.string() }))({ useCase: 'support' }), { value: { useCase: 'support' } });
    assert.ok(validate('querystring', z.strictObject({}))({ other: 'x' }).error, 'the schema still refuses what it refuses');
  });

  test('a route with path parameters and no params schema is refused when it is added', () => {
    const route = (url: string, schema?: RouteOptions['schema']) => ({ method: 'GET', url, schema, handler: () => {} }) as RouteOptions;
    assert.throws(() => requireDeclaredParams(route('/agents/:agentId')), /without a params schema/);
    assert.doesNotThrow(() => requireDeclaredParams(route('/agents/:agentId', { params: z.object({ agentId: z.string() }) })));
    assert.doesNotThrow(() => requireDeclaredParams(route('/workspace')));
  });
});
