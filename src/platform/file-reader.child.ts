/**
 * The bounded reader process (file-reader.ts): refuses a decompression bomb, then runs
 * the reader script it is sent and posts its result once.
 *
 * A guardian thread holds the bounds from inside as well: it kills this process past
 * its memory or its time, or as soon as the service that started it is gone (a killed
 * worker's reader must not run on unwatched). Being a thread of its own, it acts while
 * the reader is busy in a long synchronous step.
 */
import { Worker } from 'node:worker_threads';
import type { ChildReply, ChildRequest } from './file-reader.ts';
import { FileTooComplexError, refuseBombs } from './inflate-guard.ts';

/** Plain JavaScript, so the thread starts without loading the TypeScript stripper. */
const GUARDIAN = `
const { workerData } = require('node:worker_threads');
const { readFileSync, writeSync } = require('node:fs');
const { parent, deadline, limitBytes } = workerData;
const end = (why) => {
  writeSync(2, 'reader guardian: ' + why + '\\n');
  process.kill(process.pid, 'SIGKILL');
};
setInterval(() => {
  if (process.ppid !== parent) return end('the service is gone');
  if (Date.now() > deadline) return end('past its time');
  let status = '';
  try { status = readFileSync('/proc/self/status', 'latin1'); } catch {}
  const resident = /^RssAnon:\\s+(\\d+) kB/m.exec(status);
  if (resident && Number(resident[1]) * 1024 > limitBytes) end('over its memory');
}, 20);
`;

process.once('message', async (request: ChildRequest) => {
  const guardian = new Worker(GUARDIAN, {
    eval: true,
    workerData: { parent: process.ppid, deadline: request.deadline, limitBytes: request.memoryMb * 1024 * 1024 },
    resourceLimits: { maxOldGenerationSizeMb: 8, maxYoungGenerationSizeMb: 2 },
  });
  guardian.unref();
  process.on('disconnect', () => process.kill(process.pid, 'SIGKILL'));
  let reply: ChildReply;
  try {
    await refuseBombs(request.input.kind, request.input.bytes, request.caps);
    const reader = (await import(request.script)) as { read(input: unknown): Promise<unknown> };
    reply = { ok: true, value: await reader.read(request.input) };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    reply = { ok: false, failure: error instanceof FileTooComplexError ? 'file_too_complex' : 'file_unreadable', message };
  }
  process.send!(reply);
});
