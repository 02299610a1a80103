/**
 * When a key was last used (docs/people.md, "API keys"). Written at most once a
 * minute per key, and never on the request's own path: the write is fired and
 * not awaited, and its failure is only logged. Each process fires at most once a
 * minute per key; the UPDATE itself is conditional, so processes together write
 * at most once a minute per key too.
 */
import { sql } from 'kysely';
import type { Context } from '../../context.ts';

export const KEY_USE_EVERY_MS = 60_000;
/** Keys remembered per process before the memory is cleared (a bound, not a cache size that matters). */
const REMEMBERED = 10_000;

const firedAt = new WeakMap<Context, Map<string, number>>();

export function noteKeyUse(ctx: Context, keyId: string): void {
  let fired = firedAt.get(ctx);
  if (!fired) firedAt.set(ctx, (fired = new Map()));
  const now = ctx.clock.now();
  const last = fired.get(keyId);
  if (last !== undefined && now.getTime() - last < KEY_USE_EVERY_MS && now.getTime() >= last) return;
  if (fired.size >= REMEMBERED) fired.clear();
  fired.set(keyId, now.getTime());
  const before = new Date(now.getTime() - KEY_USE_EVERY_MS);
  void sql`update api_keys set last_used_at = ${now}
    where id = ${keyId} and (last_used_at is null or last_used_at <= ${before})`
    .execute(ctx.db)
    .catch((error: unknown) => console.error(`[keys] recording the use of key ${keyId} failed:`, error));
}
