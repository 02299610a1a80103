import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatementGroups } from './grouped-statements.ts';

/** A batch writer that records its batches and fails a batch holding a 'bad' item with the given error. */
function recordingWriter(failure: { code: string }) {
  const batches: string[][] = [];
  const writer = new StatementGroups<string, string>(async (items) => {
    batches.push(items);
    await new Promise((resolve) => setTimeout(resolve, 5));
    if (items.includes('bad')) throw Object.assign(new Error('refused'), failure);
    return items.map((item) => `${item} written`);
  });
  return { batches, writer };
}

test('a write submitted while none is in flight goes alone; those submitted meanwhile go together as the next batch, each with its own result', async () => {
  const { batches, writer } = recordingWriter({ code: '23503' });
  const results = await Promise.all(['a', 'b', 'c', 'd'].map((item) => writer.submit(item)));
  assert.deepEqual(results, ['a written', 'b written', 'c written', 'd written']);
  assert.deepEqual(batches, [['a'], ['b', 'c', 'd']]);
  assert.equal(await writer.submit('e'), 'e written', 'an idle writer writes at once again');
});

test('a batch the database refused (a SQLSTATE) is written again item by item, in order: only the item at fault fails', async () => {
  const { batches, writer } = recordingWriter({ code: '23503' });
  const settled = await Promise.allSettled(['a', 'b', 'bad', 'c'].map((item) => writer.submit(item)));
  assert.deepEqual(settled.map((result) => result.status), ['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
  assert.deepEqual(batches, [['a'], ['b', 'bad', 'c'], ['b'], ['bad'], ['c']]);
});

test('a batch that failed otherwise (the connection lost, perhaps after its commit) is not written again: all of it fails', async () => {
  const { batches, writer } = recordingWriter({ code: 'EPIPE' });
  const settled = await Promise.allSettled(['a', 'b', 'bad', 'c'].map((item) => writer.submit(item)));
  assert.deepEqual(settled.map((result) => result.status), ['fulfilled', 'rejected', 'rejected', 'rejected']);
  assert.deepEqual(batches, [['a'], ['b', 'bad', 'c']]);
});

test('gatherTurn (the embedded store): writes whose callers one event-loop turn runs go as one batch, though each caller runs to its write before the next', async () => {
  const batches: { gathered: string[][]; alone: string[][] } = { gathered: [], alone: [] };
  // A synchronous store, as PGlite is: the batch is written before the writer's promise chain yields to the event loop.
  const writer = (into: string[][], gatherTurn: boolean) =>
    new StatementGroups<string, string>(async (items) => (into.push(items), items.map((item) => `${item} written`)), 64, { gatherTurn });
  const gathered = writer(batches.gathered, true);
  const alone = writer(batches.alone, false);
  // Four requests read in one turn: each its own callback, as each socket's data is.
  const inOneTurn = (w: StatementGroups<string, string>) =>
    Promise.all(['a', 'b', 'c', 'd'].map((item) => new Promise<string>((resolve) => setImmediate(() => resolve(w.submit(item))))));
  assert.deepEqual(await inOneTurn(gathered), ['a written', 'b written', 'c written', 'd written']);
  assert.deepEqual(await inOneTurn(alone), ['a written', 'b written', 'c written', 'd written']);
  assert.deepEqual(batches.gathered, [['a', 'b', 'c', 'd']]);
  assert.deepEqual(batches.alone, [['a'], ['b'], ['c'], ['d']], 'without gathering, each caller of the turn wrote alone');
  assert.equal(await gathered.submit('e'), 'e written', 'an idle writer writes at the end of the turn');
  assert.deepEqual(batches.gathered.at(-1), ['e']);
});
