import { test } from 'node:test';
import assert from 'node:assert/strict';
import { firstUse } from './first-use.ts';

test('callers that arrive together share the one making', async () => {
  let makings = 0;
  const module = firstUse(async () => {
    makings++;
    await new Promise((resolve) => setTimeout(resolve, 10));
    return { loaded: makings };
  });
  const all = await Promise.all([module(), module(), module(), module()]);
  assert.equal(makings, 1);
  assert.ok(all.every((made) => made === all[0]));
  assert.equal(await module(), all[0]);
});

test('a failed making is tried again by the next call', async () => {
  let makings = 0;
  const module = firstUse(async () => {
    if (++makings === 1) throw new Error('could not load');
    return 'loaded';
  });
  await assert.rejects(module(), /could not load/);
  assert.equal(await module(), 'loaded');
  assert.equal(makings, 2);
});
