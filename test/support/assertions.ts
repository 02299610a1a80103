import assert from 'node:assert/strict';
import type { Reply } from './harness.ts';

/** The reply is the spec's error body (7.1) with this status and code. */
export function assertError(reply: Reply, status: number, code: string): void {
  assert.equal(reply.status, status, JSON.stringify(reply.body));
  assert.match(reply.headers.get('content-type') ?? '', /^application\/json/);
  assert.deepEqual(Object.keys(reply.body), ['error']);
  assert.deepEqual(Object.keys(reply.body.error).sort(), ['code', 'details', 'message']);
  assert.equal(reply.body.error.code, code);
  assert.equal(typeof reply.body.error.message, 'string');
  assert.ok(Array.isArray(reply.body.error.details));
}
