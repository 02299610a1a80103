import { createCipheriv, createDecipheriv, hash, randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { randomBase62 } from './ids.ts';

/** Keys and tokens are stored only as this fingerprint (they carry 285 bits of randomness, so a plain hash suffices). */
export function fingerprint(secret: string): string {
  return hash('sha256', secret, 'hex');
}

/**
 * Compares two strings (fingerprints, header values) in time that depends
 * only on their length. Plain JavaScript rather than timingSafeEqual: that
 * needs two buffers, and on the request path the native calls measured far
 * dearer than their own work (docs/performance.md).
 */
export function equalInConstantTime(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

export const API_KEY_PATTERN = /^cl_[0-9A-Za-z]{48}$/;

export function newApiKey(): string {
  return `cl_${randomBase62(48)}`;
}

export function newAdminToken(): string {
  return `pa_${randomBase62(48)}`;
}

// ---------------------------------------------------------------- secrets at rest

/**
 * A secret the service must use again (an IMAP password), sealed with AES-256-GCM
 * under the service's secret key: `v1.<iv>.<tag>.<ciphertext>`, base64url. The tag
 * makes a changed or foreign value fail to open rather than open to rubbish.
 */
export function sealSecret(key: Buffer, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), sealed].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
}

/** The secret sealSecret sealed; throws when the key is another or the value was changed. */
export function openSecret(key: Buffer, sealed: string): string {
  const [version, iv, tag, data] = sealed.split('.');
  if (version !== 'v1' || iv === undefined || tag === undefined || data === undefined) throw new Error('not a sealed secret');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
}

export const SECRET_KEY_FILE = 'secret-key';

const secretKeys = new Map<string, Promise<Buffer>>();

/**
 * The service's key for secrets at rest: PARLEY_SECRET_KEY (64 hex digits or 32 bytes
 * in base64), else the one in the data directory's secret-key file, made there (readable
 * by its owner only) on first use. Processes that share a PostgreSQL but not a data
 * directory must be given the same PARLEY_SECRET_KEY (docs/email.md).
 */
export function secretKeyOf(config: { secretKey: string | undefined; dataDir: string }): Promise<Buffer> {
  if (config.secretKey) return Promise.resolve(parseSecretKey(config.secretKey));
  let key = secretKeys.get(config.dataDir);
  if (!key) {
    key = keyFromDataDir(config.dataDir);
    key.catch(() => secretKeys.delete(config.dataDir));
    secretKeys.set(config.dataDir, key);
  }
  return key;
}

export function parseSecretKey(value: string): Buffer {
  const trimmed = value.trim();
  const key = /^[0-9a-f]{64}$/i.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64');
  if (key.length !== 32) throw new Error('PARLEY_SECRET_KEY must be 32 bytes: 64 hex digits or base64');
  return key;
}

async function keyFromDataDir(dataDir: string): Promise<Buffer> {
  const file = path.join(dataDir, SECRET_KEY_FILE);
  await mkdir(dataDir, { recursive: true });
  try {
    // wx: of two processes starting together, one writes the key and the other reads it.
    await writeFile(file, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  for (let attempt = 0; ; attempt++) {
    const written = await readFile(file, 'utf8');
    // The other process may have made the file and not yet written it.
    if (written.trim() || attempt === 20) return parseSecretKey(written);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
