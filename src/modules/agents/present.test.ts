import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Context } from '../../context.ts';
import { presentAgent, presentKeptAgent } from './service.ts';
import type { AgentRecord } from './store.ts';
import type { AgentSettings } from './settings.ts';

const contextWithModel = (defaultModel: string) => ({ models: { defaultModel } }) as unknown as Context;

function agentRow(settings: Partial<AgentSettings>): AgentRecord {
  const at = new Date('2026-11-28T12:00:00Z');
  return { id: 'ag_kept', workspace_id: 'ws_kept', status: 'active', settings: settings as AgentSettings, name: null, language: 'en', last_trained_at: null, created_at: at, updated_at: at };
}

test('a kept row is presented once per context, as presentAgent presents it; a row read again (a changed agent) is presented anew', () => {
  const ctx = contextWithModel('offline');
  const row = agentRow({ name: 'Bike shop', welcomeMessage: 'Hi!' });
  const first = presentKeptAgent(ctx, row);
  assert.deepEqual(first, presentAgent(ctx, row));
  assert.equal(presentKeptAgent(ctx, row), first, 'the same row: the kept presentation');
  assert.ok(Object.isFrozen(first), 'shared, so frozen');

  const changed = presentKeptAgent(ctx, agentRow({ name: 'Bike shop', welcomeMessage: 'Hello again!' }));
  assert.equal(changed.welcomeMessage, 'Hello again!');
  const otherContext = contextWithModel('gpt-4o-mini');
  assert.equal(presentKeptAgent(otherContext, row).model, presentAgent(otherContext, row).model, 'another context: its own defaults');
});
