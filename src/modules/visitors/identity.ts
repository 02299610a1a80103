/**
 * Signed-in visitors (docs/visitors.md, "Identity verification"): a site that
 * knows who its visitor is passes their e-mail with HMAC-SHA256(email, secret)
 * in hex, under the agent's identity secret, which only the site's server and a
 * manage key know.
 */
import { createHmac } from 'node:crypto';
import type { Context } from '../../context.ts';
import type { Principal } from '../../domain/principal.ts';
import { equalInConstantTime } from '../../platform/crypto.ts';
import { randomBase62 } from '../../platform/ids.ts';
import { requireAgent, type AgentRef } from '../agents/access.ts';
import type { Visitor } from './access.ts';
import { findIdentitySecret, identitySecretOf, replaceIdentitySecret, type IdentitySecretRow } from './store.ts';

export interface IdentitySecret {
  secret: string;
  createdAt: string;
}

/** The agent's identity secret, made on first read. */
export async function getIdentitySecret(ctx: Context, auth: Principal, agentId: string): Promise<IdentitySecret> {
  const agent = await requireAgent(ctx, auth, agentId);
  return present(await identitySecretOf(ctx.db, agent.id, () => freshSecret(ctx, agent.id)));
}

/** A new secret in place of the old one: hashes made with the old one no longer sign anyone in. */
export async function rotateIdentitySecret(ctx: Context, auth: Principal, agentId: string): Promise<IdentitySecret> {
  const agent = await requireAgent(ctx, auth, agentId);
  const row = freshSecret(ctx, agent.id);
  await replaceIdentitySecret(ctx.db, row);
  return present(row);
}

/**
 * Whether hash is HMAC-SHA256 of email (as sent, in hex, either case) under the
 * agent's identity secret. False when the agent has no secret yet.
 */
export async function verifyIdentity(ctx: Context, target: Visitor | AgentRef, identity: { email: string; hash: string }): Promise<boolean> {
  const agentId = 'agent' in target ? target.agent.id : target.id;
  const secret = await findIdentitySecret(ctx.db, agentId);
  if (!secret) return false;
  return equalInConstantTime(identityHash(secret, identity.email), identity.hash.toLowerCase());
}

/** What the site's server computes: HMAC-SHA256 of the e-mail under the secret, in lower-case hex. */
export function identityHash(secret: string, email: string): string {
  return createHmac('sha256', secret).update(email, 'utf8').digest('hex');
}

function freshSecret(ctx: Context, agentId: string): IdentitySecretRow {
  return { agent_id: agentId, secret: `is_${randomBase62(48)}`, created_at: ctx.clock.now() };
}

function present(row: IdentitySecretRow): IdentitySecret {
  return { secret: row.secret, createdAt: row.created_at.toISOString() };
}
