/**
 * Passkeys (WebAuthn, @simplewebauthn/server): a person registers, lists, renames and
 * removes their own; anyone may sign in with one, without giving an address
 * (discoverable credentials), so the ceremony never tells whether an address has an
 * account. docs/people.md, "Passkeys".
 */
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { sql } from 'kysely';
import type { Context } from '../../context.ts';
import { errors } from '../../domain/errors.ts';
import type { Db } from '../../platform/db.ts';
import { firstUse } from '../../platform/first-use.ts';
import { newId } from '../../platform/ids.ts';
import type { PersonCaller } from '../../domain/principal.ts';
import { audit, countClient, openSession } from './service.ts';
import type { PasskeyView } from './schemas.ts';
import * as store from './store.ts';

/** A challenge lapses this long after it was given. */
export const CHALLENGE_MS = 5 * 60_000;
/** A person may hold this many passkeys. */
export const MAX_PASSKEYS = 20;

interface PasskeyRow {
  id: string;
  person_id: string;
  credential_id: string;
  public_key: Uint8Array;
  sign_count: number | string;
  transports: string[] | null;
  name: string;
  backed_up: boolean;
  created_at: Date;
  last_used_at: Date | null;
}

interface ChallengeRow {
  challenge: string;
  purpose: 'register' | 'sign_in';
  person_id: string | null;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
}

declare module '../../platform/db.ts' {
  interface Tables {
    passkeys: PasskeyRow;
    passkey_challenges: ChallengeRow;
  }
}

/** @simplewebauthn/server (and its ASN.1 packages, about 11 MB) is loaded by the first passkey request, not at start-up. */
const webauthn = firstUse(async () => {
  const [server, helpers] = await Promise.all([import('@simplewebauthn/server'), import('@simplewebauthn/server/helpers')]);
  return { ...server, isoBase64URL: helpers.isoBase64URL };
});

/** The relying party: the host and origin of PARLEY_PUBLIC_URL (read each time: a test service settles its address after start). */
function relyingParty(ctx: Context): { rpID: string; origin: string } {
  const url = new URL(ctx.config.publicUrl);
  return { rpID: url.hostname, origin: url.origin };
}

/** The user handle the authenticator keeps with the credential: the person's id. */
const userHandleOf = (personId: string) => new TextEncoder().encode(personId);

export function passkeyView(row: Pick<PasskeyRow, 'id' | 'name' | 'created_at' | 'last_used_at' | 'backed_up'>): PasskeyView {
  return { id: row.id, name: row.name, backedUp: row.backed_up, createdAt: row.created_at.toISOString(), lastUsedAt: row.last_used_at?.toISOString() ?? null };
}

// ---------------------------------------------------------------- challenges

async function newChallenge(ctx: Context, challenge: string, purpose: ChallengeRow['purpose'], personId: string | null): Promise<void> {
  const now = ctx.clock.now();
  // Lapsed challenges go as new ones come: the table holds only the last few minutes'.
  await ctx.db.deleteFrom('passkey_challenges').where('expires_at', '<', now).execute();
  await ctx.db
    .insertInto('passkey_challenges')
    .values({ challenge, purpose, person_id: personId, created_at: now, expires_at: new Date(now.getTime() + CHALLENGE_MS), used_at: null })
    .execute();
}

/**
 * Uses a challenge: true once, for a challenge of that purpose (and person) given in
 * the last minutes; the check and the use are one statement, so two processes
 * answering with the same challenge cannot both succeed.
 */
async function useChallenge(db: Db, now: Date, challenge: string, purpose: ChallengeRow['purpose'], personId: string | null): Promise<boolean> {
  let update = db
    .updateTable('passkey_challenges')
    .set({ used_at: now })
    .where('challenge', '=', challenge)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now);
  update = personId === null ? update.where('person_id', 'is', null) : update.where('person_id', '=', personId);
  const used = await update.returning('challenge').executeTakeFirst();
  return used !== undefined;
}

// ---------------------------------------------------------------- registration

export async function registrationOptions(ctx: Context, caller: PersonCaller) {
  const existing = await listRows(ctx.db, caller.personId);
  if (existing.length >= MAX_PASSKEYS) throw errors.invalid(`A person may hold at most ${MAX_PASSKEYS} passkeys; remove one first.`);
  const { rpID } = relyingParty(ctx);
  const { generateRegistrationOptions } = await webauthn();
  const options = await generateRegistrationOptions({
    rpName: 'Parley',
    rpID,
    userID: userHandleOf(caller.personId),
    userName: caller.email,
    userDisplayName: caller.name || caller.email,
    timeout: CHALLENGE_MS,
    attestationType: 'none',
    excludeCredentials: existing.map((row) => ({ id: row.credential_id, transports: row.transports ?? undefined })),
    // Discoverable, so that signing in asks for no address.
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
  });
  await newChallenge(ctx, options.challenge, 'register', caller.personId);
  return options;
}

const registrationRefused = (why: string) => errors.invalidField('response', `The passkey could not be registered: ${why}.`);

export async function registerPasskey(ctx: Context, caller: PersonCaller, input: { response: RegistrationResponseJSON; name?: string }, requestId: string) {
  const { rpID, origin } = relyingParty(ctx);
  const now = ctx.clock.now();
  const { verifyRegistrationResponse } = await webauthn();
  let verification;
  try {
    verification = await verifyRegistrationResponse({
      response: input.response,
      expectedChallenge: (challenge) => useChallenge(ctx.db, now, challenge, 'register', caller.personId),
      expectedOrigin: origin,
      expectedRPID: rpID,
      requireUserVerification: true,
    });
  } catch (error) {
    throw registrationRefused(error instanceof Error ? error.message : 'it is malformed');
  }
  if (!verification.verified) throw registrationRefused('it did not verify');
  const { credential, credentialBackedUp } = verification.registrationInfo;
  const count = await listRows(ctx.db, caller.personId);
  if (count.length >= MAX_PASSKEYS) throw errors.invalid(`A person may hold at most ${MAX_PASSKEYS} passkeys; remove one first.`);
  const row: PasskeyRow = {
    id: newId('pky'),
    person_id: caller.personId,
    credential_id: credential.id,
    public_key: credential.publicKey,
    sign_count: credential.counter,
    transports: credential.transports ?? null,
    name: input.name ?? `Passkey ${count.length + 1}`,
    backed_up: credentialBackedUp,
    created_at: now,
    last_used_at: null,
  };
  const inserted = await ctx.db
    .insertInto('passkeys')
    .values({ ...row, transports: row.transports === null ? null : sql<string[]>`cast(${JSON.stringify(row.transports)}::text as jsonb)` })
    .onConflict((oc) => oc.column('credential_id').doNothing())
    .returning('id')
    .executeTakeFirst();
  if (!inserted) throw registrationRefused('that passkey is registered already');
  await audit(ctx, caller, 'person.passkey.add', row.id, requestId);
  return passkeyView(row);
}

// ---------------------------------------------------------------- the person's own

function listRows(db: Db, personId: string): Promise<PasskeyRow[]> {
  return db.selectFrom('passkeys').selectAll().where('person_id', '=', personId).orderBy('created_at').orderBy('id').execute();
}

export async function listPasskeys(ctx: Context, caller: PersonCaller) {
  return (await listRows(ctx.db, caller.personId)).map(passkeyView);
}

export async function renamePasskey(ctx: Context, caller: PersonCaller, passkeyId: string, name: string, requestId: string) {
  const row = await ctx.db
    .updateTable('passkeys')
    .set({ name })
    .where('id', '=', passkeyId)
    .where('person_id', '=', caller.personId)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw errors.notFound('passkey');
  await audit(ctx, caller, 'person.passkey.rename', passkeyId, requestId);
  return passkeyView(row);
}

/** Removed at once: the next sign-in with it, in any process, is refused. */
export async function removePasskey(ctx: Context, caller: PersonCaller, passkeyId: string, requestId: string): Promise<void> {
  const removed = await ctx.db.deleteFrom('passkeys').where('id', '=', passkeyId).where('person_id', '=', caller.personId).returning('id').executeTakeFirst();
  if (!removed) throw errors.notFound('passkey');
  await audit(ctx, caller, 'person.passkey.remove', passkeyId, requestId);
}

// ---------------------------------------------------------------- signing in

/** Options for any passkey of this service: no address is asked, none is told. */
export async function signInOptions(ctx: Context, clientAddress: string) {
  await countClient(ctx, clientAddress);
  const { rpID } = relyingParty(ctx);
  const { generateAuthenticationOptions } = await webauthn();
  const options = await generateAuthenticationOptions({ rpID, timeout: CHALLENGE_MS, userVerification: 'required' });
  await newChallenge(ctx, options.challenge, 'sign_in', null);
  return options;
}

const SIGN_IN_REFUSED = () => errors.unauthorized('The passkey was not accepted; try again, or sign in another way.');

/**
 * Signs in with a passkey's answer: the challenge must be one given for signing in and
 * unused (single use), the origin and relying party this service's, the signature the
 * registered key's, and the signature counter (when the authenticator keeps one) above
 * the one stored. The same session as the other ways of signing in, in the workspace the
 * person joined first. Every refusal is the same 401.
 */
export async function signInWithPasskey(ctx: Context, response: AuthenticationResponseJSON, clientAddress: string, userAgent: string): Promise<string> {
  await countClient(ctx, clientAddress);
  const passkey = await ctx.db.selectFrom('passkeys').selectAll().where('credential_id', '=', String(response.id)).executeTakeFirst();
  if (!passkey) throw SIGN_IN_REFUSED();
  const { rpID, origin } = relyingParty(ctx);
  const now = ctx.clock.now();
  const { verifyAuthenticationResponse, isoBase64URL } = await webauthn();
  let verification;
  try {
    verification = await verifyAuthenticationResponse({
      response,
      expectedChallenge: (challenge) => useChallenge(ctx.db, now, challenge, 'sign_in', null),
      expectedOrigin: origin,
      expectedRPID: rpID,
      credential: {
        id: passkey.credential_id,
        publicKey: new Uint8Array(passkey.public_key),
        counter: Number(passkey.sign_count),
        transports: (passkey.transports ?? undefined) as never,
      },
      requireUserVerification: true,
    });
  } catch {
    throw SIGN_IN_REFUSED();
  }
  if (!verification.verified) throw SIGN_IN_REFUSED();
  // The authenticator keeps the credential with the person's handle: it must be this passkey's person.
  const handle = response.response.userHandle;
  if (handle && handle !== isoBase64URL.fromBuffer(userHandleOf(passkey.person_id))) throw SIGN_IN_REFUSED();
  return ctx.db.transaction().execute(async (trx) => {
    // The counter moves only forward, once: a copy of the same answer (or a cloned key) racing this one loses.
    const moved = await trx
      .updateTable('passkeys')
      .set({ sign_count: verification.authenticationInfo.newCounter, last_used_at: now })
      .where('id', '=', passkey.id)
      .where('sign_count', '=', passkey.sign_count)
      .returning('id')
      .executeTakeFirst();
    if (!moved) throw SIGN_IN_REFUSED();
    const membership = await store.firstMembershipOf(trx, passkey.person_id);
    if (!membership) throw SIGN_IN_REFUSED();
    return openSession(trx, ctx, passkey.person_id, membership.workspace_id, userAgent);
  });
}
