import { hash, timingSafeEqual } from 'node:crypto';
import { randomBase62 } from './ids.ts';

/** Keys and tokens are stored only as this fingerprint (they carry 285 bits of randomness, so a plain hash suffices). */
export function fingerprint(secret: string): string {
  return hash('sha256', secret, 'hex');
}

export function equalInConstantTime(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

export const API_KEY_PATTERN = /^cl_[0-9A-Za-z]{48}$/;

export function newApiKey(): string {
  return `cl_${randomBase62(48)}`;
}

export function newAdminToken(): string {
  return `pa_${randomBase62(48)}`;
}
