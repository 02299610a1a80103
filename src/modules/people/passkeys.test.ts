/**
 * Passkeys (docs/people.md, "Passkeys"): a person registers, lists, renames and removes
 * theirs; signing in with one asks for no address and gives the same session as a link
 * or a password. Challenges are single use and the relying party is the service's own:
 * a replayed answer, another origin, an unknown or removed credential are refused.
 * The authenticator is a software one (./test-authenticator.ts).
 */
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startService, type SeededWorkspace, type Service } from '../../../test/support/harness.ts';
import { assertError } from '../../../test/support/assertions.ts';
import { addPerson, appCall, ownOrigin, sessionCookieOf, signedInAs, signIn, type SignedIn } from './test-support.ts';
import { SoftPasskey } from './test-authenticator.ts';
import { createContext } from '../../context.ts';
import { buildApp } from '../../app.ts';

let service: Service;
let ws: SeededWorkspace;
let owner: SignedIn;
let counter = 0;

before(async () => {
  service = await startService({ env: { PARLEY_RATE_LIMIT_PER_MINUTE: '100000' } });
  ws = await service.seedWorkspace({ name: 'Passkeys' });
  owner = await signIn(service, ws.id, 'owner@example.com');
});
after(async () => {
  await service.close();
});

const rpId = () => new URL(service.ctx.config.publicUrl).hostname;

/** Registers a new software passkey for the person; gives it and the reply. */
async function register(person: SignedIn, name?: string, passkey = new SoftPasskey()) {
  const options = await person.call('POST', '/api/me/passkeys/options');
  assert.equal(options.status, 200, JSON.stringify(options.body));
  const reply = await person.call('POST', '/api/me/passkeys', { response: passkey.register(options.body.data, person.origin), ...(name ? { name } : {}) });
  return { passkey, reply };
}

async function signInOptions(service_ = service) {
  const options = await appCall(service_, 'POST', '/api/sign-in/passkey/options', { headers: { origin: ownOrigin(service) } });
  assert.equal(options.status, 200, JSON.stringify(options.body));
  return options.body.data as { challenge: string; rpId: string; allowCredentials?: unknown[] };
}

const answer = (response: Record<string, unknown>, service_ = service) =>
  appCall(service_, 'POST', '/api/sign-in/passkey', { body: { response }, headers: { origin: ownOrigin(service) } });

describe('passkeys: registering and managing', () => {
  test('register, list, rename and remove: the person\'s own', async () => {
    const { reply } = await register(owner, 'Laptop');
    assert.equal(reply.status, 201, JSON.stringify(reply.body));
    assert.equal(reply.body.data.name, 'Laptop');
    const id = reply.body.data.id as string;
    const entry = (await service.admin('GET', `/workspaces/${ws.id}/audit`)).body.data.find((e: { action: string; target: string }) => e.action === 'person.passkey.add' && e.target === id);
    assert.ok(entry?.personId, 'the audit log names the person');
    const second = await register(owner);
    assert.equal(second.reply.status, 201, JSON.stringify(second.reply.body));
    let list = await owner.call('GET', '/api/me/passkeys');
    assert.deepEqual(list.body.data.map((p: { id: string }) => p.id), [id, second.reply.body.data.id]);
    assert.ok(!JSON.stringify(list.body).includes('public'), 'no key material in the list');
    const renamed = await owner.call('PATCH', `/api/me/passkeys/${id}`, { name: 'Work laptop' });
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
    assert.equal(renamed.body.data.name, 'Work laptop');
    assertError(await owner.call('PATCH', `/api/me/passkeys/${id}`, { name: 'Two\nlines' }), 400, 'invalid_request');
    const other = await addPerson(service, owner, `keyholder${++counter}@example.org`, 'admin');
    assertError(await other.call('PATCH', `/api/me/passkeys/${id}`, { name: 'Mine now' }), 404, 'not_found');
    assertError(await other.call('DELETE', `/api/me/passkeys/${id}`), 404, 'not_found');
    assert.equal((await other.call('GET', '/api/me/passkeys')).body.data.length, 0);
    assert.equal((await owner.call('DELETE', `/api/me/passkeys/${id}`)).status, 200);
    list = await owner.call('GET', '/api/me/passkeys');
    assert.deepEqual(list.body.data.map((p: { id: string }) => p.id), [second.reply.body.data.id]);
  });

  test('user verification is required: the options ask for it, and a registration answer without it (UV flag unset) is 400', async () => {
    const person = await addPerson(service, owner, `presence${++counter}@example.org`, 'member');
    const options = (await person.call('POST', '/api/me/passkeys/options')).body.data;
    assert.equal(options.authenticatorSelection.userVerification, 'required');
    const presenceOnly = new SoftPasskey();
    presenceOnly.verifiesUser = false;
    assertError(await person.call('POST', '/api/me/passkeys', { response: presenceOnly.register(options, person.origin) }), 400, 'invalid_request');
    assert.deepEqual((await person.call('GET', '/api/me/passkeys')).body.data, []);
  });

  test('a registration answer is accepted once; one for another origin or relying party, or to a challenge never given, is 400', async () => {
    const person = await addPerson(service, owner, `registrar${++counter}@example.org`, 'member');
    const options = (await person.call('POST', '/api/me/passkeys/options')).body.data;
    const passkey = new SoftPasskey();
    const wrongOrigin = passkey.register(options, 'https://evil.example');
    assertError(await person.call('POST', '/api/me/passkeys', { response: wrongOrigin }), 400, 'invalid_request');
    // That answer used its challenge up: the right answer to it is refused as well.
    assertError(await person.call('POST', '/api/me/passkeys', { response: passkey.register(options, person.origin) }), 400, 'invalid_request');
    const fresh = (await person.call('POST', '/api/me/passkeys/options')).body.data;
    assertError(await person.call('POST', '/api/me/passkeys', { response: new SoftPasskey().register(fresh, person.origin, 'evil.example') }), 400, 'invalid_request');
    assertError(await person.call('POST', '/api/me/passkeys', { response: new SoftPasskey().register({ ...fresh, challenge: 'bm90LWdpdmVu' }, person.origin) }), 400, 'invalid_request');
    const good = (await person.call('POST', '/api/me/passkeys/options')).body.data;
    const response = new SoftPasskey().register(good, person.origin);
    assert.equal((await person.call('POST', '/api/me/passkeys', { response })).status, 201);
    assertError(await person.call('POST', '/api/me/passkeys', { response }), 400, 'invalid_request');
    // Another person's registration challenge is not this person's.
    const theirs = (await owner.call('POST', '/api/me/passkeys/options')).body.data;
    assertError(await person.call('POST', '/api/me/passkeys', { response: new SoftPasskey().register(theirs, person.origin) }), 400, 'invalid_request');
    assert.equal((await person.call('GET', '/api/me/passkeys')).body.data.length, 1);
  });
});

describe('passkeys: signing in', () => {
  // Each sign-in request counts toward the client's 20 a minute (docs/people.md, "Limits"): each test starts a new minute.
  beforeEach(async () => {
    assert.equal((await service.admin('POST', '/clock', { advanceSeconds: 61 })).status, 200);
  });

  test('sign-in requests count toward the client address\'s 20 a minute, as links and passwords do: then 429 rate_limited', async () => {
    for (let i = 0; i < 20; i++) await signInOptions();
    const refused = await appCall(service, 'POST', '/api/sign-in/passkey/options', { headers: { origin: ownOrigin(service) } });
    assertError(refused, 429, 'rate_limited');
    assert.ok(Number(refused.headers.get('retry-after')) > 0);
  });

  test('the same session as the other ways: the cookie, GET /app/api/me, the person\'s first workspace; no address is asked or told', async () => {
    const email = `signer${++counter}@example.org`;
    const person = await addPerson(service, owner, email, 'member');
    const { passkey } = await register(person);
    const options = await signInOptions();
    assert.equal(options.rpId, rpId());
    assert.ok(!options.allowCredentials || options.allowCredentials.length === 0, 'no credentials listed: the options are the same for everyone');
    const reply = await answer(passkey.assert(options, ownOrigin(service)));
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    assert.equal(reply.body.data.person.email, email);
    assert.equal(reply.body.data.workspace.id, ws.id);
    const session = await signedInAs(service, sessionCookieOf(reply));
    const sessions = await session.call('GET', '/api/sessions');
    assert.equal(sessions.body.data.filter((s: { current: boolean }) => s.current).length, 1);
    assert.ok((await session.call('GET', '/api/me/passkeys')).body.data[0].lastUsedAt, 'the passkey records its use');
  });

  test('a replayed answer is refused: each challenge works once (also for an authenticator without a counter)', async () => {
    for (const keepsCounter of [true, false]) {
      const person = await addPerson(service, owner, `replay${++counter}@example.org`, 'member');
      const { passkey } = await register(person, undefined, new SoftPasskey(keepsCounter));
      const response = passkey.assert(await signInOptions(), ownOrigin(service));
      assert.equal((await answer(response)).status, 200);
      assertError(await answer(response), 401, 'unauthorized');
      assert.equal((await answer(passkey.assert(await signInOptions(), ownOrigin(service)))).status, 200, 'a fresh challenge works');
    }
  });

  test('an answer for another origin or relying party, to a challenge never given, or past its minutes is 401', async () => {
    const person = await addPerson(service, owner, `origin${++counter}@example.org`, 'member');
    const { passkey } = await register(person);
    assertError(await answer(passkey.assert(await signInOptions(), 'https://evil.example')), 401, 'unauthorized');
    assertError(await answer(passkey.assert(await signInOptions(), ownOrigin(service), 'evil.example')), 401, 'unauthorized');
    assertError(await answer(passkey.assert({ challenge: 'bm90LWdpdmVu', rpId: rpId() }, ownOrigin(service))), 401, 'unauthorized');
    // A registration challenge is not a sign-in challenge.
    const registration = (await person.call('POST', '/api/me/passkeys/options')).body.data;
    assertError(await answer(passkey.assert({ challenge: registration.challenge, rpId: rpId() }, ownOrigin(service))), 401, 'unauthorized');
    const options = await signInOptions();
    await service.ctx.db.updateTable('passkey_challenges').set({ expires_at: new Date(service.ctx.clock.now().getTime() - 1) }).where('challenge', '=', options.challenge).execute();
    assertError(await answer(passkey.assert(options, ownOrigin(service))), 401, 'unauthorized');
  });

  test('user verification is required to sign in: the options ask for it, and an answer without it (UV flag unset) is 401', async () => {
    const person = await addPerson(service, owner, `unverified${++counter}@example.org`, 'member');
    const { passkey } = await register(person);
    const options = await signInOptions();
    assert.equal((options as { userVerification?: string }).userVerification, 'required');
    passkey.verifiesUser = false;
    assertError(await answer(passkey.assert(options, ownOrigin(service))), 401, 'unauthorized');
    passkey.verifiesUser = true;
    assert.equal((await answer(passkey.assert(await signInOptions(), ownOrigin(service)))).status, 200);
  });

  test('a credential never registered, or one signing as another person, is 401', async () => {
    assertError(await answer(new SoftPasskey().assert(await signInOptions(), ownOrigin(service))), 401, 'unauthorized');
    const person = await addPerson(service, owner, `impostor${++counter}@example.org`, 'member');
    const { passkey } = await register(person);
    const { passkey: ownersKey } = await register(owner);
    passkey.userHandle = ownersKey.userHandle;
    assertError(await answer(passkey.assert(await signInOptions(), ownOrigin(service))), 401, 'unauthorized');
    // A forged signature: the right credential id, another key's signature.
    const forged = new SoftPasskey().assert(await signInOptions(), ownOrigin(service));
    forged.id = forged.rawId = ownersKey.id;
    assertError(await answer(forged), 401, 'unauthorized');
  });

  test('a removed passkey signs in no more, at once', async () => {
    const person = await addPerson(service, owner, `remover${++counter}@example.org`, 'member');
    const { passkey, reply } = await register(person);
    assert.equal((await answer(passkey.assert(await signInOptions(), ownOrigin(service)))).status, 200);
    assert.equal((await person.call('DELETE', `/api/me/passkeys/${reply.body.data.id}`)).status, 200);
    assertError(await answer(passkey.assert(await signInOptions(), ownOrigin(service))), 401, 'unauthorized');
  });

  test('a person removed from every workspace cannot sign in with their passkey', async () => {
    const person = await addPerson(service, owner, `leaver${++counter}@example.org`, 'member');
    const { passkey } = await register(person);
    const personId = (await person.call('GET', '/api/me')).body.data.person.id;
    assert.equal((await owner.call('DELETE', `/api/people/${personId}`)).status, 200);
    assertError(await answer(passkey.assert(await signInOptions(), ownOrigin(service))), 401, 'unauthorized');
  });

  test('a ceremony begun in one process ends in another on the same database; its answer works once across both', async (t) => {
    if (!service.ctx.config.databaseUrl) return t.skip('one process only on the embedded store');
    const ctx = await createContext({ ...service.ctx.config });
    const app = await buildApp(ctx, { logger: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    const other = { ...service, url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` } as Service;
    try {
      const person = await addPerson(service, owner, `traveller${++counter}@example.org`, 'member');
      const { passkey } = await register(person);
      const response = passkey.assert(await signInOptions(service), ownOrigin(service));
      const there = await answer(response, other);
      assert.equal(there.status, 200, JSON.stringify(there.body));
      assertError(await answer(response, service), 401, 'unauthorized');
      // The session made there works here.
      assert.equal((await appCall(service, 'GET', '/api/me', { headers: { cookie: sessionCookieOf(there) } })).status, 200);
    } finally {
      await app.close();
      await ctx.close();
    }
  });

  test('sign-in from another site is refused (login CSRF): 403 forbidden', async () => {
    const options = await appCall(service, 'POST', '/api/sign-in/passkey/options', { headers: { origin: 'https://evil.example' } });
    assertError(options, 403, 'forbidden');
  });
});
