import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GroupWriter } from './group-writes.ts';

/** A batch writer that records its batches and fails a batch holding a 'bad' item with the given error. */
function recordingWriter(failure: { code: string }) {
  const batches: string[][] = [];
  const writer = new GroupWriter<string, string>(async (items) => {
    batches.push(items);
    await new Promise((resolve) => setTimeout(resolve, 5));
    if (items.includes('bad')) throw Object.assign(new Error('refused'), failure);
    return items.map((item) => `${item} written`);
  });
  return { batches, writer };
}

test('a write submitted while none is in flight goes alone; those submitted meanwhile go together as the next batch, each with its own result', async () => {
  const { batches, writer } = recordingWriter({ code: '23503' });
  const results = await Promise.all(['a', 'b', 'c', 'd'].map((item) => writer.write(item)));
  assert.deepEqual(results, ['a written', 'b written', 'c written', 'd written']);
  assert.deepEqual(batches, [['a'], ['b', 'c', 'd']]);
  assert.equal(await writer.write('e'), 'e written', 'an idle writer writes at once again');
});

test('a batch the database refused (a SQLSTATE) is written again item by item, in order: only the item at fault fails', async () => {
  const { batches, writer } = recordingWriter({ code: '23503' });
  const settled = await Promise.allSettled(['a', 'b', 'bad', 'c'].map((item) => writer.write(item)));
  assert.deepEqual(settled.map((result) => result.status), ['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
  assert.deepEqual(batches, [['a'], ['b', 'bad', 'c'], ['b'], ['bad'], ['c']]);
});

test('a batch that failed otherwise (the connection lost, perhaps after its commit) is not written again: all of it fails', async () => {
  const { batches, writer } = recordingWriter({ code: 'EPIPE' });
  const settled = await Promise.allSettled(['a', 'b', 'bad', 'c'].map((item) => writer.write(item)));
  assert.deepEqual(settled.map((result) => result.status), ['fulfilled', 'rejected', 'rejected', 'rejected']);
  assert.deepEqual(batches, [['a'], ['b', 'bad', 'c']]);
});
