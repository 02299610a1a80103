/**
 * The bounded reader itself (file-reader.ts): its memory bound holds memory outside
 * the V8 heap, its time bound ends a read, a process runs at most its number of
 * reads at once, and a reader whose service is killed does not run on unwatched. The
 * readers of visitor files and file sources are tested through the
 * API in knowledge/read-file.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createFileReader, FileReadError, FileReaderBusyError } from './file-reader.ts';

const FIXTURE = new URL('../../test/support/file-readers.ts', import.meta.url);
const BOUNDS = { memoryMb: 256, timeoutMs: 20_000 };
const nothing = { kind: 'text', bytes: new Uint8Array(0) };

test('a read that allocates past the memory bound outside the V8 heap (typed arrays) is ended as file_too_complex; the caller’s memory stays put', async () => {
  const reader = createFileReader({ concurrency: 2 });
  try {
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
    const started = Date.now();
    await assert.rejects(
      reader.read(FIXTURE, { ...nothing, mode: 'allocate', mb: 2048 }, BOUNDS),
      (error: unknown) => error instanceof FileReadError && error.failure === 'file_too_complex' && /more than 256 MB/.test(error.message),
    );
    clearInterval(sampler);
    assert.ok(Date.now() - started < 10_000, `ended after ${Date.now() - started} ms`);
    assert.ok(peak - before < 100 * 1024 * 1024, `the caller grew by ${Math.round((peak - before) / 1024 / 1024)} MB`);
    // Within the bound the same reader works.
    const fine = await reader.read<{ pid: number }>(FIXTURE, { ...nothing, mode: 'allocate', mb: 64 }, BOUNDS);
    assert.notEqual(fine.pid, process.pid, 'read in a process of its own');
  } finally {
    await reader.close();
  }
});

test('a read past its time is ended as file_too_complex', async () => {
  const reader = createFileReader({ concurrency: 1 });
  try {
    await assert.rejects(
      reader.read(FIXTURE, { ...nothing, mode: 'sleep', ms: 10_000 }, { ...BOUNDS, timeoutMs: 500 }),
      (error: unknown) => error instanceof FileReadError && error.failure === 'file_too_complex' && /longer than 500 ms/.test(error.message),
    );
  } finally {
    await reader.close();
  }
});

test('at most `concurrency` reads run at once; the others wait, and a caller that asked is refused once four a slot wait', async () => {
  const reader = createFileReader({ concurrency: 2 });
  try {
    const runs = await Promise.all(
      Array.from({ length: 5 }, () => reader.read<{ startedAt: number; endedAt: number }>(FIXTURE, { ...nothing, mode: 'sleep', ms: 400 }, BOUNDS)),
    );
    for (const run of runs) {
      const overlapping = runs.filter((other) => other.startedAt < run.endedAt && other.endedAt > run.startedAt);
      assert.ok(overlapping.length <= 2, `${overlapping.length} reads ran at once`);
    }

    const one = createFileReader({ concurrency: 1 });
    try {
      const queued = Array.from({ length: 5 }, () => one.read(FIXTURE, { ...nothing, mode: 'sleep', ms: 300 }, BOUNDS, { refuseWhenBusy: true }));
      await assert.rejects(one.read(FIXTURE, { ...nothing, mode: 'sleep', ms: 1 }, BOUNDS, { refuseWhenBusy: true }), FileReaderBusyError);
      await Promise.all(queued);
    } finally {
      await one.close();
    }
  } finally {
    await reader.close();
  }
});

test('a reader whose service is killed ends itself within seconds (its bounds were the service’s to watch)', async () => {
  const script = `import { createFileReader } from ${JSON.stringify(new URL('./file-reader.ts', import.meta.url).href)};
    const reader = createFileReader({ concurrency: 1 });
    void reader.read(new URL(${JSON.stringify(FIXTURE.href)}), { kind: 'text', bytes: new Uint8Array(0), mode: 'sleep', ms: 60000 }, { memoryMb: 256, timeoutMs: 60000 });
    setInterval(() => {}, 1000);`;
  const service = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: 'ignore' });
  try {
    const reader = await eventually('the reader started', () => childPids(service.pid!)[0]);
    // Its guardian thread is up once the read began.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    service.kill('SIGKILL');
    await eventually('the reader ended', () => !isRunning(reader) || undefined, 5_000);
  } finally {
    service.kill('SIGKILL');
  }
});

async function eventually<T>(what: string, check: () => T | undefined, timeoutMs = 20_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    assert.ok(Date.now() < until, `${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'latin1').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** Alive and not a zombie (a container's first process may never reap an orphan). */
function isRunning(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'latin1'));
  } catch {
    return false;
  }
}
