import { hash } from 'node:crypto';
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
