/**
 * The bounded reader process (file-reader.ts): refuses a decompression bomb, then runs
 * the reader script it is sent and posts its result once.
 */
import type { ChildReply, ChildRequest } from './file-reader.ts';
import { FileTooComplexError, refuseBombs } from './inflate-guard.ts';

process.once('message', async (request: ChildRequest) => {
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
