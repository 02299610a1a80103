import { randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// CSPRNG bytes drawn a few kilobytes at a time (as crypto.randomUUID does):
// one call into the generator per request id would cost more than the id's use.
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function randomByte(): number {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  return pool[poolOffset++]!;
}

/** Random base62 text from a CSPRNG, without modulo bias. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 248) out += ALPHABET[byte % 62]; // 248 = 4 * 62: drop the biased tail
  }
  return out;
}

/**
 * Identifier prefixes. The spec fixes ag_, src_, conv_, msg_, lead_ and evt_;
 * the others are this service's own.
 */
export type IdKind =
  | 'ag' | 'src' | 'conv' | 'msg' | 'lead' | 'evt'
  | 'ws' | 'key' | 'aud' | 'req' | 'crawl' | 'mail' | 'tkt' | 'ent' | 'file' | 'wh' | 'dlv' | 'job' | 'img' | 'chk' | 'act' | 'vev'
  | 'psn' | 'ses' | 'lnk' | 'pky';

export function newId(kind: IdKind): string {
  return `${kind}_${randomBase62(20)}`;
}
