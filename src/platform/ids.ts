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

/** Characters of a time-ordered id's time: milliseconds in base 36, enough until the year 2059. */
const TIME_DIGITS = 8;

/**
 * An identifier that starts with its creation time (milliseconds in lowercase base 36, fixed
 * width: digits before letters in every collation, so the text sorts by time), then 12 random
 * base62 characters (71 bits). Rows keyed by it go to the end of their primary key's B-tree,
 * where random ids send each insert to another page: at a million passages every batch
 * rewrote most of the passages' and vectors' key pages (docs/performance.md, "Fifth round (search1m)").
 */
export function newTimeOrderedId(kind: IdKind, now = Date.now()): string {
  return `${kind}_${Math.floor(now).toString(36).padStart(TIME_DIGITS, '0')}${randomBase62(12)}`;
}
