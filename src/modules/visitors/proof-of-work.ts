/**
 * The optional proof-of-work of an agent's widget (docs/security.md, "Settings
 * owners have"): with the agent's proofOfWork on, every question to the visitor
 * API carries the solution of a fresh challenge, so a script pays CPU for each
 * answer it makes the agent spend credits on. ALTCHA's format (altcha-lib):
 * SHA-256 in deterministic mode, the counter drawn between 5,000 and 25,000
 * (a browser solves it in a fraction of a second), signed with the service's
 * key and tied to the agent. Each solution is accepted once, in every process:
 * its challenge's nonce is kept in the database until the challenge expires.
 *
 * Challenges expire by the wall clock (altcha-lib judges expiry by Date.now()),
 * not the service's clock, which tests move.
 */
import { randomBytes } from 'node:crypto';
import type { Challenge } from 'altcha-lib';
import { sql } from 'kysely';
import { z } from 'zod';
import type { Context } from '../../context.ts';
import { errors } from '../../domain/errors.ts';
import type { Db } from '../../platform/db.ts';
import type { Visitor } from './access.ts';
import { firstUse } from '../../platform/first-use.ts';

/** The request header that carries a solved challenge: base64 of JSON { challenge, solution }. */
export const PROOF_HEADER = 'x-visitor-proof';

/** altcha-lib, loaded by the first challenge made or checked (an agent with proofOfWork on), not at start-up. */
const altcha = firstUse(async () => {
  const [library, sha] = await Promise.all([import('altcha-lib'), import('altcha-lib/algorithms/sha')]);
  return { createChallenge: library.createChallenge, randomInt: library.randomInt, verifySolution: library.verifySolution, deriveKey: sha.deriveKey };
});

const ALGORITHM = 'SHA-256';
const COUNTER_MIN = 5_000;
const COUNTER_MAX = 25_000;
const CHALLENGE_LIFETIME_MS = 10 * 60_000;
const MAX_HEADER_LENGTH = 4_000;

interface SigningKeys {
  signature: string;
  key: string;
}

const signingKeys = new WeakMap<Context, Promise<SigningKeys>>();

/** A challenge for the agent's visitor to solve. */
export async function newChallenge(ctx: Context, agentId: string): Promise<Challenge> {
  const keys = await signingKeysOf(ctx);
  const { createChallenge, randomInt, deriveKey } = await altcha();
  return createChallenge({
    algorithm: ALGORITHM,
    cost: 1,
    counter: randomInt(COUNTER_MAX, COUNTER_MIN),
    deriveKey,
    data: { agent: agentId },
    expiresAt: new Date(Date.now() + CHALLENGE_LIFETIME_MS),
    hmacSignatureSecret: keys.signature,
    hmacKeySignatureSecret: keys.key,
  });
}

const proofSchema = z.object({
  challenge: z.object({
    parameters: z.looseObject({ nonce: z.string().min(1).max(200), expiresAt: z.number().optional(), data: z.record(z.string(), z.unknown()).optional() }),
    signature: z.string().max(200).optional(),
  }),
  solution: z.object({ counter: z.number(), derivedKey: z.string().max(200) }),
});

/**
 * With the agent's proofOfWork on, the request must carry a solution of a
 * challenge made for this agent, not yet expired nor used: anything else is
 * 400 invalid_request naming the header (it uses no limits, as every 400).
 */
export async function requireProof(ctx: Context, visitor: Visitor, header: string | string[] | undefined): Promise<void> {
  if (!visitor.settings.proofOfWork) return;
  const refuse = (message: string) => errors.invalidField(PROOF_HEADER, message);
  if (typeof header !== 'string' || header === '') throw refuse(`required: this agent asks for a solved challenge (GET /visitor/v1/agents/${visitor.agent.id}/challenge).`);
  const proof = header.length <= MAX_HEADER_LENGTH ? parseProof(header) : undefined;
  if (!proof || proof.challenge.parameters.data?.agent !== visitor.agent.id) throw refuse('not a solved challenge of this agent.');
  const keys = await signingKeysOf(ctx);
  const { verifySolution, deriveKey } = await altcha();
  const result = await verifySolution({
    challenge: proof.challenge as unknown as Challenge,
    solution: { ...proof.solution, time: 0 },
    deriveKey,
    hmacSignatureSecret: keys.signature,
    hmacKeySignatureSecret: keys.key,
  }).catch(() => undefined);
  if (result?.expired) throw refuse('the challenge expired: solve a new one.');
  if (!result?.verified) throw refuse('not a solved challenge of this agent.');
  const expiresAt = new Date((proof.challenge.parameters.expiresAt ?? 0) * 1000);
  if (!(await markUsed(ctx.db, proof.challenge.parameters.nonce, expiresAt))) throw refuse('this solution was used already: solve a new challenge for each question.');
}

function parseProof(header: string): z.infer<typeof proofSchema> | undefined {
  try {
    return proofSchema.parse(JSON.parse(Buffer.from(header, 'base64').toString('utf8')));
  } catch {
    return undefined;
  }
}

/** Keeps the nonce until its challenge expires; false when it was kept already (the solution was used). Drops the expired ones. */
async function markUsed(db: Db, nonce: string, expiresAt: Date): Promise<boolean> {
  const now = new Date();
  const inserted = await sql<{ nonce: string }>`
    with expired as (delete from used_proofs where expires_at < ${now})
    insert into used_proofs (nonce, expires_at) values (${nonce}, ${expiresAt})
    on conflict (nonce) do nothing returning nonce`.execute(db);
  return inserted.rows.length > 0;
}

/** The service's signing keys, made on first use and the same for every process (the database's row decides). */
function signingKeysOf(ctx: Context): Promise<SigningKeys> {
  let keys = signingKeys.get(ctx);
  if (!keys) {
    keys = loadSigningKeys(ctx.db);
    keys.catch(() => signingKeys.delete(ctx));
    signingKeys.set(ctx, keys);
  }
  return keys;
}

async function loadSigningKeys(db: Db): Promise<SigningKeys> {
  await sql`insert into proof_of_work_keys (id, secret, created_at) values ('challenges', ${randomBytes(48).toString('hex')}, ${new Date()})
    on conflict (id) do nothing`.execute(db);
  const row = await sql<{ secret: string }>`select secret from proof_of_work_keys where id = 'challenges'`.execute(db);
  const secret = row.rows[0]!.secret;
  return { signature: secret.slice(0, 48), key: secret.slice(48) };
}
