import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startService, type SeededWorkspace, type Service } from '../../../test/support/harness.ts';

describe('GET /workspace', () => {
  let service: Service;
  let ws: SeededWorkspace;
  before(async () => {
    service = await startService();
    ws = await service.seedWorkspace({ plan: 'studio' });
  });
  after(() => service.close());

  test('GET /workspace returns the key and the plan, credits and agent usage', async () => {
    const reply = await service.api('GET', '/workspace', { key: ws.keys.read });
    assert.equal(reply.status, 200);
    assert.equal(reply.body.data.key.scope, 'read');
    assert.equal(reply.body.data.key.agentId, null);
    assert.equal(reply.body.data.key.id, ws.keyIds.read);
    assert.deepEqual(reply.body.data.workspace.agents, { count: 0, limit: 5 });
    assert.equal(reply.body.data.workspace.credits.overage, false);
    assert.equal(reply.body.data.workspace.plan, 'studio');
  });
});
