import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatementGroups } from './grouped-statements.ts';

/** Statement groups that record each group they run and fail a group holding a 'bad' item with the given error. */
function recordingGroups(failure: { code: string }) {
  const groups: string[][] = [];
  const runner = new StatementGroups<string, string>(async (items) => {
    groups.push(items);
    await new Promise((resolve) => setTimeout(resolve, 5));
    if (items.includes('bad')) throw Object.assign(new Error('refused'), failure);
    return items.map((item) => `${item} run`);
  });
  return { groups, runner };
}

test('an item submitted while no group is in flight goes alone; those submitted meanwhile go together as the next group, each with its own result', async () => {
  const { groups, runner } = recordingGroups({ code: '23503' });
  const results = await Promise.all(['a', 'b', 'c', 'd'].map((item) => runner.submit(item)));
  assert.deepEqual(results, ['a run', 'b run', 'c run', 'd run']);
  assert.deepEqual(groups, [['a'], ['b', 'c', 'd']]);
  assert.equal(await runner.submit('e'), 'e run', 'an idle runner runs at once again');
});

test('a group the database refused (a SQLSTATE) is run again item by item, in order: only the item at fault fails', async () => {
  const { groups, runner } = recordingGroups({ code: '23503' });
  const settled = await Promise.allSettled(['a', 'b', 'bad', 'c'].map((item) => runner.submit(item)));
  assert.deepEqual(settled.map((result) => result.status), ['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
  assert.deepEqual(groups, [['a'], ['b', 'bad', 'c'], ['b'], ['bad'], ['c']]);
});

test('a group that failed otherwise (the connection lost, perhaps after its commit) is not run again: all of it fails', async () => {
  const { groups, runner } = recordingGroups({ code: 'EPIPE' });
  const settled = await Promise.allSettled(['a', 'b', 'bad', 'c'].map((item) => runner.submit(item)));
  assert.deepEqual(settled.map((result) => result.status), ['fulfilled', 'rejected', 'rejected', 'rejected']);
  assert.deepEqual(groups, [['a'], ['b', 'bad', 'c']]);
});

test('gatherTurn (the embedded store): items whose callers one event-loop turn runs go as one group, though each caller runs to its submit before the next', async () => {
  const groups: { gathered: string[][]; alone: string[][] } = { gathered: [], alone: [] };
  // A synchronous store, as PGlite is: the group is run before the runner's promise chain yields to the event loop.
  const runner = (into: string[][], gatherTurn: boolean) =>
    new StatementGroups<string, string>(async (items) => (into.push(items), items.map((item) => `${item} run`)), 64, { gatherTurn });
  const gathered = runner(groups.gathered, true);
  const alone = runner(groups.alone, false);
  // Four requests read in one turn: each its own callback, as each socket's data is.
  const inOneTurn = (w: StatementGroups<string, string>) =>
    Promise.all(['a', 'b', 'c', 'd'].map((item) => new Promise<string>((resolve) => setImmediate(() => resolve(w.submit(item))))));
  assert.deepEqual(await inOneTurn(gathered), ['a run', 'b run', 'c run', 'd run']);
  assert.deepEqual(await inOneTurn(alone), ['a run', 'b run', 'c run', 'd run']);
  assert.deepEqual(groups.gathered, [['a', 'b', 'c', 'd']]);
  assert.deepEqual(groups.alone, [['a'], ['b'], ['c'], ['d']], 'without gathering, each caller of the turn ran alone');
  assert.equal(await gathered.submit('e'), 'e run', 'an idle runner runs at the end of the turn');
  assert.deepEqual(groups.gathered.at(-1), ['e']);
});
