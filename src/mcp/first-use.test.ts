/**
 * The MCP server is made by the first /mcp request (docs/performance.md, Memory): requests that arrive
 * together, before it exists, are each answered as a later one is.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startService, type SeededWorkspace, type Service } from '../../test/support/harness.ts';
import { TOOLS } from './tools.ts';
import { listToolsMessage, rawMcp } from './test-support.ts';

let service: Service;
let ws: SeededWorkspace;

before(async () => {
  service = await startService({ workers: false, env: { PARLEY_RATE_LIMIT_PER_MINUTE: '100000' } });
  ws = await service.seedWorkspace({ plan: 'enterprise' });
});
after(async () => service?.close());

test('concurrent first requests to /mcp are each answered in full, as later ones are', async () => {
  const first = await Promise.all([
    ...Array.from({ length: 6 }, (_, index) => rawMcp(service, ws.keys.manage, { ...listToolsMessage, id: index + 1 })),
    fetch(`${service.url}/mcp`, { headers: { authorization: `Bearer ${ws.keys.manage}` } }),
  ]);
  const lists = first.slice(0, 6) as Array<Awaited<ReturnType<typeof rawMcp>>>;
  for (const [index, reply] of lists.entries()) {
    assert.equal(reply.status, 200);
    assert.equal(reply.body.id, index + 1);
    assert.equal(reply.body.result.tools.length, TOOLS.length, 'a manage key of an enterprise workspace sees every tool');
  }
  const get = first[6] as Response;
  assert.equal(get.status, 405);
  assert.deepEqual(await get.json(), { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null });

  const later = await rawMcp(service, ws.keys.manage, listToolsMessage);
  assert.deepEqual(later.body.result, lists[0]!.body.result);
});
