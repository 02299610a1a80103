/**
 * A reader script for the bounded reader's own tests (src/platform/file-reader.test.ts):
 * it sleeps, or allocates memory outside the V8 heap (typed arrays, as pdf.js does),
 * as its input says.
 */
interface Input {
  kind: string;
  bytes: Uint8Array;
  mode: 'sleep' | 'allocate';
  ms?: number;
  mb?: number;
}

export async function read(input: Input): Promise<{ pid: number; startedAt: number; endedAt: number }> {
  const startedAt = Date.now();
  if (input.mode === 'sleep') await new Promise((resolve) => setTimeout(resolve, input.ms));
  if (input.mode === 'allocate') {
    const held: Uint8Array[] = [];
    for (let i = 0; i < (input.mb ?? 0) / 16; i++) {
      held.push(new Uint8Array(16 * 1024 * 1024).fill(1));
      // Lets the parent's watch see the memory grow, as a reader's awaits would.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  return { pid: process.pid, startedAt, endedAt: Date.now() };
}
