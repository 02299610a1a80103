/**
 * The job queue's batches and wake-ups (src/platform/queue.ts), on each store: jobs
 * waiting when a batch worker starts come to it in one batch; a job sent to an idle
 * worker wakes it (its polling floor is set far beyond the test's wait, so only the
 * wake-up can bring the job); a job whose outcome is an error comes again as a retry; a
 * one-job-at-a-time worker takes a backlog one job after the other, not one a poll; a
 * queue started at first use (an api process's) sends within a transaction like any other.
 */
import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createQueue, type BatchJob, type Queue } from './queue.ts';
import { freshDatabase, type TestDatabase } from '../../test/support/stores.ts';

/** Far beyond any wait below: a job handled sooner was brought by a wake-up. */
const POLLING_SECONDS = 120;
const WAIT_MS = 20_000;

let opened: Array<{ queue: Queue; store: TestDatabase }> = [];

afterEach(async () => {
  for (const { queue, store } of opened) {
    await queue.stop();
    await store.database.close();
    await store.drop();
  }
  opened = [];
});

async function openQueue(options: { startAtFirstUse?: boolean } = {}): Promise<Queue> {
  const store = await freshDatabase();
  const queue = await createQueue(store.database, { pollingSeconds: POLLING_SECONDS, ...options });
  opened.push({ queue, store });
  return queue;
}

/** Resolves when `done` holds, checked every 20 ms; fails after WAIT_MS. */
async function until(what: string, done: () => boolean): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${WAIT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('batch workers of the job queue', () => {
  test('jobs waiting when the worker starts come to it as one batch, with their data, in one statement sent', async () => {
    const queue = await openQueue();
    await queue.define('test.batched', { retryLimit: 0 });
    const ids = await queue.sendMany('test.batched', Array.from({ length: 12 }, (_, n) => ({ data: { n } })));
    assert.equal(new Set(ids).size, 12, 'one id a job');
    const batches: Array<Array<BatchJob<{ n: number }>>> = [];
    await queue.workBatches<{ n: number }>('test.batched', async (jobs) => {
      batches.push(jobs);
      return new Map(jobs.map((job) => [job.id, null]));
    }, { batchSize: 50 });
    await until('the jobs are handled', () => batches.flat().length === 12);
    assert.equal(batches.length, 1, `one batch: ${batches.map((batch) => batch.length).join(', ')}`);
    assert.deepEqual(batches[0]!.map((job) => job.data.n).sort((a, b) => a - b), Array.from({ length: 12 }, (_, n) => n));
    assert.deepEqual(new Set(batches[0]!.map((job) => job.id)), new Set(ids), 'the ids sendMany answered are the jobs’ ids');
  });

  test('a job sent to an idle worker wakes it: handled long before the worker would look again', async () => {
    const queue = await openQueue();
    await queue.define('test.woken', { retryLimit: 0 });
    const handled: string[] = [];
    await queue.workBatches<{ word: string }>('test.woken', async (jobs) => {
      handled.push(...jobs.map((job) => job.data.word));
      return new Map(jobs.map((job) => [job.id, null]));
    }, { batchSize: 10 });
    // The worker's first look found nothing; it now waits POLLING_SECONDS unless woken.
    await new Promise((resolve) => setTimeout(resolve, 500));
    await queue.send('test.woken', { word: 'first' });
    await until('the first job is handled', () => handled.includes('first'));
    await queue.sendMany('test.woken', [{ data: { word: 'second' } }, { data: { word: 'third' } }]);
    await until('the jobs sent together are handled', () => handled.includes('second') && handled.includes('third'));
  });

  test('a job answered with an error comes again as a retry; the others of its batch do not', async () => {
    const queue = await openQueue();
    await queue.define('test.retried', { retryLimit: 1, retryDelaySeconds: 0 });
    await queue.sendMany('test.retried', [{ data: { word: 'fine' } }, { data: { word: 'flaky' } }]);
    const seen: Array<{ word: string; retryCount: number }> = [];
    await queue.workBatches<{ word: string }>('test.retried', async (jobs) => {
      seen.push(...jobs.map((job) => ({ word: job.data.word, retryCount: job.retryCount })));
      return new Map(jobs.map((job) => [job.id, job.data.word === 'flaky' && job.retryCount === 0 ? new Error('passing fault') : null]));
    }, { batchSize: 10 });
    await until('both jobs were handled once', () => seen.length >= 2);
    // A retry made due by time sends no wake-up: jobs sent meanwhile wake the worker, which takes the retry once due.
    const retried = () => seen.some((entry) => entry.word === 'flaky' && entry.retryCount === 1);
    const deadline = Date.now() + WAIT_MS;
    while (!retried() && Date.now() < deadline) {
      await queue.send('test.retried', { word: 'waker' });
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    assert.ok(retried(), `the flaky job came again: ${JSON.stringify(seen)}`);
    assert.equal(seen.filter((entry) => entry.word === 'fine').length, 1, `the job that succeeded is not handled again: ${JSON.stringify(seen)}`);
  });

  test('a worker taking one job at a time works through a backlog without waiting for the poll between jobs', async () => {
    const queue = await openQueue();
    await queue.define('test.one-by-one', { retryLimit: 0 });
    // Sent before the worker starts: no NOTIFY can bring them, only its fetching again at once after each job.
    await queue.sendMany('test.one-by-one', Array.from({ length: 6 }, (_, n) => ({ data: { n } })));
    const handled: number[] = [];
    await queue.work<{ n: number }>('test.one-by-one', async (data) => {
      handled.push(data.n);
    });
    await until('the backlog is handled', () => handled.length === 6);
    assert.deepEqual([...handled].sort((a, b) => a - b), [0, 1, 2, 3, 4, 5]);
  });

  test('with a concurrency of two, two jobs are handled at once', async () => {
    const queue = await openQueue();
    await queue.define('test.side-by-side', { retryLimit: 0 });
    await queue.sendMany('test.side-by-side', Array.from({ length: 4 }, (_, n) => ({ data: { n } })));
    let running = 0;
    let most = 0;
    const handled: number[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    await queue.work<{ n: number }>(
      'test.side-by-side',
      async (data) => {
        running++;
        most = Math.max(most, running);
        if (running === 2) release();
        await gate;
        running--;
        handled.push(data.n);
      },
      { concurrency: 2 },
    );
    await until('the jobs are handled', () => handled.length === 4);
    assert.equal(most, 2);
  });
});

describe('one waiting job a key', () => {
  test('a send whose key has a job waiting is dropped; one sent while that job runs is kept', async () => {
    const queue = await openQueue();
    await queue.define('test.one-waiting', { retryLimit: 0, oneWaitingPerKey: true });
    const first = await queue.send('test.one-waiting', { n: 1 }, { singletonKey: 'agent-a', startAfterSeconds: 1 });
    assert.ok(first);
    assert.equal(await queue.send('test.one-waiting', { n: 2 }, { singletonKey: 'agent-a', startAfterSeconds: 1 }), null, 'one is waiting already');
    assert.ok(await queue.send('test.one-waiting', { n: 3 }, { singletonKey: 'agent-b' }), 'another key');
    const handled: number[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let again: string | null | undefined;
    await queue.work<{ n: number }>('test.one-waiting', async (data) => {
      if (data.n === 1) {
        again = await queue.send('test.one-waiting', { n: 4 }, { singletonKey: 'agent-a' });
        release();
      }
      handled.push(data.n);
    }, { pollingSeconds: 1 }); // the delayed job sends no wake-up
    await gate;
    await until('the jobs are handled', () => handled.length === 3);
    assert.ok(again, 'sent while the key\'s job ran');
    assert.deepEqual([...handled].sort(), [1, 3, 4]);
  });
});

describe('a queue started at first use (the api role)', () => {
  test('a job sent within a transaction by a queue that had not started reaches a worker of an ordinary queue on the same store', async () => {
    const sender = await openQueue({ startAtFirstUse: true });
    const { store } = opened.at(-1)!;
    const worker = await createQueue(store.database, { pollingSeconds: POLLING_SECONDS });
    opened.unshift({ queue: worker, store: { ...store, drop: async () => {}, database: { ...store.database, close: async () => {} } } });
    const seen: number[] = [];
    await worker.define('test.first-use', { retryLimit: 0 });
    await worker.workBatches<{ n: number }>('test.first-use', async (jobs) => {
      for (const job of jobs) seen.push(job.data.n);
      return new Map(jobs.map((job) => [job.id, null]));
    }, { batchSize: 10 });
    await sender.define('test.first-use', { retryLimit: 0 });
    await store.database.db.transaction().execute((trx) => sender.sendMany('test.first-use', [{ data: { n: 7 } }], { within: trx }));
    await until('the job is worked', () => seen.length === 1);
    assert.deepEqual(seen, [7]);
  });
});
