import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { clockToStartOfNext, HOUR_MS, MINUTE_MS, startService, type Service } from '../../../test/support/harness.ts';
import { assertError } from '../../../test/support/assertions.ts';
import { appCall, latestMailTo, linkIn, ownOrigin, sessionCookieOf, signedInAs, signIn, signInWithToken, tokenOf } from './test-support.ts';

let service: Service;
before(async () => {
  service = await startService();
});
after(() => service.close());

let counter = 0;
async function workspaceOwnedBy(email = `owner${++counter}@example.org`) {
  const created = await service.admin('POST', '/workspaces', { name: `People ${counter}`, ownerEmail: email });
  assert.equal(created.status, 201);
  return { id: created.body.data.id as string, email };
}


async function operatorLink(workspaceId: string, email?: string): Promise<string> {
  const reply = await service.admin('POST', `/workspaces/${workspaceId}/sign-in-links`, email ? { email } : {});
  assert.equal(reply.status, 201, JSON.stringify(reply.body));
  return reply.body.data.url;
}

describe('owners: the operator ownerEmail is the workspace owner', () => {
  test('a workspace made with ownerEmail has that person as owner, who signs in with the operator link', async () => {
    const ws = await workspaceOwnedBy();
    const owner = await signIn(service, ws.id);
    const me = await owner.call('GET', '/api/me');
    assert.equal(me.status, 200);
    assert.equal(me.body.data.role, 'owner');
    assert.equal(me.body.data.person.email, ws.email);
    assert.equal(me.body.data.workspace.id, ws.id);
  });

  test('PATCH ownerEmail moves ownership; the owner before stays as an admin', async () => {
    const ws = await workspaceOwnedBy();
    const before = await signIn(service, ws.id);
    assert.equal((await service.admin('PATCH', `/workspaces/${ws.id}`, { ownerEmail: 'NEW-owner@example.org' })).status, 200);
    assert.equal((await before.call('GET', '/api/me')).body.data.role, 'admin');
    const after = await signIn(service, ws.id);
    assert.equal((await after.call('GET', '/api/me')).body.data.role, 'owner');
    assert.equal((await after.call('GET', '/api/me')).body.data.person.email, 'NEW-owner@example.org');
  });

  test('an address is one person whatever its case', async () => {
    const ws = await workspaceOwnedBy('Case@Example.org');
    const owner = await signIn(service, ws.id, 'case@example.ORG');
    assert.equal((await owner.call('GET', '/api/me')).body.data.person.email, 'Case@Example.org');
  });

  test('the operator link needs a known workspace and a person of it', async () => {
    const ws = await workspaceOwnedBy();
    assertError(await service.admin('POST', '/workspaces/ws_unknown/sign-in-links', {}), 404, 'not_found');
    assertError(await service.admin('POST', `/workspaces/${ws.id}/sign-in-links`, { email: 'stranger@example.org' }), 400, 'invalid_request');
    const ownerless = (await service.admin('POST', '/workspaces', { name: 'No owner' })).body.data.id;
    assertError(await service.admin('POST', `/workspaces/${ownerless}/sign-in-links`, {}), 400, 'invalid_request');
  });
});

describe('sign-in links: one click, single use, limited in time', () => {
  test('opening the link shows a page with one button and uses nothing (a mail scanner leaves it usable)', async () => {
    const ws = await workspaceOwnedBy();
    const url = await operatorLink(ws.id);
    for (let i = 0; i < 2; i++) {
      const page = await fetch(`${service.url}${new URL(url).pathname}${new URL(url).search}`);
      assert.equal(page.status, 200);
      const html = await page.text();
      assert.match(html, /<form method="post" action="\/app\/sign-in">/);
      assert.match(html, /<button type="submit">Sign in<\/button>/);
      // same-origin: no other site gets the token in a Referer, and the form's POST still carries the page's Origin.
      assert.equal(page.headers.get('referrer-policy'), 'same-origin');
    }
    const signed = await appCall(service, 'POST', '/sign-in', { form: { token: tokenOf(url) }, headers: { origin: ownOrigin(service) } });
    assert.equal(signed.status, 303);
    assert.equal(signed.headers.get('location'), '/app');
  });

  test('the page opened without a token (a link cut off) submits nothing and leads to the sign-in page', async () => {
    const html = await (await fetch(`${service.url}/app/sign-in`)).text();
    assert.doesNotMatch(html, /<form|<script/);
    assert.match(html, /<a href="\/app">/);
  });

  test('a link works once: the second use is 401 unauthorized and opens no session', async () => {
    const ws = await workspaceOwnedBy();
    const token = tokenOf(await operatorLink(ws.id));
    await signInWithToken(service, token);
    const again = await appCall(service, 'POST', '/sign-in', { body: { token } });
    assertError(again, 401, 'unauthorized');
    assert.equal(again.headers.getSetCookie().length, 0);
  });

  test('a forged or malformed token is 401 unauthorized', async () => {
    for (const token of ['x', 'A'.repeat(48), '<script>', '']) {
      assertError(await appCall(service, 'POST', '/sign-in', { body: { token } }), 401, 'unauthorized');
    }
  });

  test("the operator's link lasts 24 hours", async () => {
    const ws = await workspaceOwnedBy();
    const token = tokenOf(await operatorLink(ws.id));
    await service.admin('POST', '/clock', { advanceSeconds: 24 * 3600 + 1 });
    assertError(await appCall(service, 'POST', '/sign-in', { body: { token } }), 401, 'unauthorized');
  });

  test('a sign-in from another site is 403 forbidden (login CSRF)', async () => {
    const ws = await workspaceOwnedBy();
    const token = tokenOf(await operatorLink(ws.id));
    assertError(await appCall(service, 'POST', '/sign-in', { form: { token }, headers: { origin: 'https://evil.example' } }), 403, 'forbidden');
    await signInWithToken(service, token);
  });
});

describe('sign-in link by mail', () => {
  test('the reply is the same whether or not the address has an account; only the person gets a mail, with a link valid 15 minutes', async () => {
    const ws = await workspaceOwnedBy();
    const known = await appCall(service, 'POST', '/api/sign-in/links', { body: { email: ws.email } });
    const unknown = await appCall(service, 'POST', '/api/sign-in/links', { body: { email: `nobody${counter}@example.org` } });
    assert.equal(known.status, 202);
    assert.deepEqual(known.body, unknown.body);
    assert.equal(known.status, unknown.status);
    const mail = await latestMailTo(service, ws.email);
    assert.match(mail.subject, /Sign in to People/);
    const token = tokenOf(linkIn(mail.text));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const outbox = await service.admin('GET', '/outbox');
    assert.equal(outbox.body.data.filter((m: { to: string }) => m.to === `nobody${counter}@example.org`).length, 0);
    await service.admin('POST', '/clock', { advanceSeconds: 15 * 60 + 1 });
    assertError(await appCall(service, 'POST', '/sign-in', { body: { token } }), 401, 'unauthorized');
  });

  test('a mailed link signs in once', async () => {
    const ws = await workspaceOwnedBy();
    await appCall(service, 'POST', '/api/sign-in/links', { body: { email: ws.email } });
    const token = tokenOf(linkIn((await latestMailTo(service, ws.email)).text));
    const person = await signInWithToken(service, token);
    assert.equal((await person.call('GET', '/api/me')).body.data.role, 'owner');
    assertError(await appCall(service, 'POST', '/sign-in', { body: { token } }), 401, 'unauthorized');
  });

  test('links to one address are 5 an hour: asking again is 429 rate_limited with Retry-After, for an address with or without an account', async () => {
    const email = `flood${++counter}@example.org`;
    const replies = [];
    await clockToStartOfNext(service, HOUR_MS);
    for (let i = 0; i < 6; i++) {
      replies.push(await appCall(service, 'POST', '/api/sign-in/links', { body: { email } }));
      await service.admin('POST', '/clock', { advanceSeconds: 61 });
    }
    assert.deepEqual(replies.slice(0, 5).map((r) => r.status), [202, 202, 202, 202, 202]);
    assertError(replies[5]!, 429, 'rate_limited');
    assert.ok(Number(replies[5]!.headers.get('retry-after')) > 0);
  });

  test('a malformed address is 400 invalid_request', async () => {
    assertError(await appCall(service, 'POST', '/api/sign-in/links', { body: { email: 'not an address' } }), 400, 'invalid_request');
  });
});

describe('passwords (argon2id)', () => {
  test('a signed-in person sets a password and signs in with it; a wrong one is 401 unauthorized', async () => {
    const ws = await workspaceOwnedBy();
    const owner = await signIn(service, ws.id);
    assert.equal((await owner.call('PUT', '/api/me/password', { password: 'correct horse battery' })).status, 200);
    assertError(await appCall(service, 'POST', '/api/sign-in/password', { body: { email: ws.email, password: 'wrong horse battery' } }), 401, 'unauthorized');
    const reply = await appCall(service, 'POST', '/api/sign-in/password', { body: { email: ws.email.toUpperCase(), password: 'correct horse battery' } });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    assert.equal(reply.body.data.role, 'owner');
    const again = await signedInAs(service, sessionCookieOf(reply));
    assert.equal((await again.call('GET', '/api/me')).body.data.person.hasPassword, true);
  });

  test('changing a password needs the current one', async () => {
    const ws = await workspaceOwnedBy();
    const owner = await signIn(service, ws.id);
    await owner.call('PUT', '/api/me/password', { password: 'first password 1' });
    assertError(await owner.call('PUT', '/api/me/password', { password: 'second password 2' }), 400, 'invalid_request');
    assertError(await owner.call('PUT', '/api/me/password', { password: 'second password 2', currentPassword: 'nope' }), 400, 'invalid_request');
    assert.equal((await owner.call('PUT', '/api/me/password', { password: 'second password 2', currentPassword: 'first password 1' })).status, 200);
  });

  test("setting or changing a password ends the person's other sessions, in every workspace, and keeps this one", async () => {
    const ws = await workspaceOwnedBy();
    const person = await signIn(service, ws.id);
    const elsewhere = await signIn(service, ws.id);
    assert.equal((await person.call('PUT', '/api/me/password', { password: 'first password 1' })).status, 200);
    assertError(await elsewhere.call('GET', '/api/me'), 401, 'unauthorized');
    assert.equal((await person.call('GET', '/api/me')).status, 200);
    const later = await signIn(service, ws.id);
    assert.equal((await person.call('PUT', '/api/me/password', { password: 'second password 2', currentPassword: 'first password 1' })).status, 200);
    assertError(await later.call('GET', '/api/me'), 401, 'unauthorized');
    assert.equal((await person.call('GET', '/api/me')).status, 200);
  });

  test('an address without an account or without a password is refused the same way', async () => {
    const ws = await workspaceOwnedBy();
    const noPassword = await appCall(service, 'POST', '/api/sign-in/password', { body: { email: ws.email, password: 'anything at all' } });
    const noAccount = await appCall(service, 'POST', '/api/sign-in/password', { body: { email: 'ghost@example.org', password: 'anything at all' } });
    assertError(noPassword, 401, 'unauthorized');
    assert.deepEqual(noPassword.body, noAccount.body);
  });

  test("a password guessed in a loop meets 429 rate_limited from that client, but the guesses do not keep the owner out from another", async () => {
    const ws = await workspaceOwnedBy();
    const owner = await signIn(service, ws.id);
    await owner.call('PUT', '/api/me/password', { password: 'the real password' });
    const statuses = [];
    await clockToStartOfNext(service, MINUTE_MS);
    for (let i = 0; i < 5; i++) statuses.push((await passwordFrom(OTHER_CLIENT, ws.email, `guess ${i}`)).status);
    assert.deepEqual(statuses, [401, 401, 401, 401, 401]);
    assert.equal((await passwordFrom(OTHER_CLIENT, ws.email, 'the real password')).status, 429);
    const ownersTry = await appCall(service, 'POST', '/api/sign-in/password', { body: { email: ws.email, password: 'the real password' } });
    assert.equal(ownersTry.status, 200, JSON.stringify(ownersTry.body));
    await service.admin('POST', '/clock', { advanceSeconds: 61 });
    assert.equal((await passwordFrom(OTHER_CLIENT, ws.email, 'the real password')).status, 200);
  });
});

/** Another client address of the loopback network, as a second computer would be. */
const OTHER_CLIENT = '127.0.0.2';

function passwordFrom(localAddress: string, email: string, password: string): Promise<{ status: number }> {
  const body = JSON.stringify({ email, password });
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${service.url}/app/api/sign-in/password`, { method: 'POST', localAddress, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (response) => {
      response.resume();
      response.on('end', () => resolve({ status: response.statusCode! }));
    });
    request.on('error', reject);
    request.end(body);
  });
}

describe('sessions', () => {
  test('the cookie is HttpOnly, SameSite=Lax, on the whole site, and holds an opaque token', async () => {
    const ws = await workspaceOwnedBy();
    const reply = await appCall(service, 'POST', '/sign-in', { body: { token: tokenOf(await operatorLink(ws.id)) } });
    const line = reply.headers.getSetCookie()[0]!;
    assert.match(line, /^parley_session=[0-9A-Za-z]{48};/);
    assert.match(line, /HttpOnly/);
    assert.match(line, /SameSite=Lax/);
    assert.match(line, /Path=\//);
    assert.doesNotMatch(line, /Secure/);
  });

  test('only the fingerprint of the token is stored', async () => {
    const ws = await workspaceOwnedBy();
    const person = await signIn(service, ws.id);
    const token = person.cookie.split('=')[1]!;
    const rows = await service.ctx.db.selectFrom('sessions').select('fingerprint').execute();
    assert.ok(rows.every((row) => row.fingerprint !== token));
    assert.ok(rows.some((row) => row.fingerprint.length === 64));
  });

  test('a person lists their sessions and ends one; it is refused at once', async () => {
    const ws = await workspaceOwnedBy();
    const first = await signIn(service, ws.id);
    const second = await signIn(service, ws.id);
    const list = await first.call('GET', '/api/sessions');
    assert.equal(list.status, 200);
    assert.equal(list.body.data.length, 2);
    const other = list.body.data.find((s: { current: boolean }) => !s.current);
    assert.equal((await first.call('DELETE', `/api/sessions/${other.id}`)).status, 200);
    assertError(await second.call('GET', '/api/me'), 401, 'unauthorized');
    assertError(await first.call('DELETE', `/api/sessions/${other.id}`), 404, 'not_found');
  });

  test("another person's session cannot be ended (404 not_found)", async () => {
    const a = await signIn(service, (await workspaceOwnedBy()).id);
    const b = await signIn(service, (await workspaceOwnedBy()).id);
    const bSession = (await b.call('GET', '/api/sessions')).body.data[0].id;
    assertError(await a.call('DELETE', `/api/sessions/${bSession}`), 404, 'not_found');
    assert.equal((await b.call('GET', '/api/me')).status, 200);
  });

  test('sign-out ends the session and clears the cookie', async () => {
    const person = await signIn(service, (await workspaceOwnedBy()).id);
    const out = await person.call('POST', '/api/sign-out');
    assert.equal(out.status, 200);
    assert.match(out.headers.getSetCookie()[0]!, /parley_session=;/);
    assertError(await person.call('GET', '/api/me'), 401, 'unauthorized');
  });

  test('a session unused for 7 days ends', async () => {
    const person = await signIn(service, (await workspaceOwnedBy()).id);
    await service.admin('POST', '/clock', { advanceSeconds: 7 * 86400 + 1 });
    assertError(await person.call('GET', '/api/me'), 401, 'unauthorized');
  });

  test('a session in use ends 30 days after sign-in', async () => {
    const person = await signIn(service, (await workspaceOwnedBy()).id);
    for (let day = 6; day < 30; day += 6) {
      await service.admin('POST', '/clock', { advanceSeconds: 6 * 86400 });
      assert.equal((await person.call('GET', '/api/me')).status, 200, `day ${day}`);
    }
    await service.admin('POST', '/clock', { advanceSeconds: 6 * 86400 });
    assertError(await person.call('GET', '/api/me'), 401, 'unauthorized');
  });
});

describe('the person themselves', () => {
  test('a person changes their name and language; sign-in links then come in that language', async () => {
    const ws = await workspaceOwnedBy();
    const person = await signIn(service, ws.id);
    const changed = await person.call('PATCH', '/api/me', { name: 'Lena de Vries', language: 'nl' });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.deepEqual([changed.body.data.person.name, changed.body.data.person.language], ['Lena de Vries', 'nl']);
    assertError(await person.call('PATCH', '/api/me', { language: 'fr' }), 400, 'invalid_request');
    await appCall(service, 'POST', '/api/sign-in/links', { body: { email: ws.email } });
    assert.match((await latestMailTo(service, ws.email)).subject, /^Inloggen bij People/);
  });

  test("a person's name is one line (else 400 invalid_request naming it) and loses its bidi controls", async () => {
    const person = await signIn(service, (await workspaceOwnedBy()).id);
    const refused = await person.call('PATCH', '/api/me', { name: 'Lena\r\nBcc: everyone@example.org' });
    assertError(refused, 400, 'invalid_request');
    assert.match(JSON.stringify(refused.body), /name/);
    const changed = await person.call('PATCH', '/api/me', { name: 'Lena \u202efdp.exe' });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.equal(changed.body.data.person.name, 'Lena fdp.exe');
  });
});

describe('several workspaces', () => {
  test('a person of two workspaces sees both and moves the session between them; a workspace not theirs is 404', async () => {
    const first = await workspaceOwnedBy();
    const second = (await service.admin('POST', '/workspaces', { name: 'Second', ownerEmail: first.email })).body.data.id;
    const person = await signIn(service, first.id);
    const me = (await person.call('GET', '/api/me')).body.data;
    assert.deepEqual(me.workspaces.map((w: { id: string }) => w.id), [first.id, second]);
    const moved = await person.call('PUT', '/api/me/workspace', { workspaceId: second });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    assert.equal((await person.call('GET', '/api/me')).body.data.workspace.id, second);
    const stranger = (await workspaceOwnedBy()).id;
    assertError(await person.call('PUT', '/api/me/workspace', { workspaceId: stranger }), 404, 'not_found');
    assert.equal((await person.call('GET', '/api/me')).body.data.workspace.id, second);
  });
});

describe('CSRF: a change made with the cookie needs the session token and the own Origin', () => {
  test('a missing or wrong CSRF token, or a missing or foreign Origin, is 403 forbidden and changes nothing', async () => {
    const person = await signIn(service, (await workspaceOwnedBy()).id);
    const other = await signIn(service, (await workspaceOwnedBy()).id);
    const body = { name: 'CSRF', scope: 'read' };
    assertError(await person.call('POST', '/api/keys', body, { csrf: null }), 403, 'forbidden');
    assertError(await person.call('POST', '/api/keys', body, { csrf: 'x'.repeat(64) }), 403, 'forbidden');
    assertError(await person.call('POST', '/api/keys', body, { csrf: other.csrfToken }), 403, 'forbidden');
    assertError(await person.call('POST', '/api/keys', body, { origin: null }), 403, 'forbidden');
    assertError(await person.call('POST', '/api/keys', body, { origin: 'https://evil.example' }), 403, 'forbidden');
    assert.deepEqual((await person.call('GET', '/api/keys')).body.data, []);
  });

  test('reads need no CSRF token', async () => {
    const person = await signIn(service, (await workspaceOwnedBy()).id);
    assert.equal((await person.call('GET', '/api/me', undefined, { csrf: null, origin: null })).status, 200);
  });

  test('without a session: 401 unauthorized; with an API key instead: 403 forbidden', async () => {
    const ws = await service.seedWorkspace();
    assertError(await appCall(service, 'GET', '/api/me'), 401, 'unauthorized');
    assertError(await appCall(service, 'GET', '/api/me', { headers: { authorization: `Bearer ${ws.keys.manage}` } }), 403, 'forbidden');
    assertError(await appCall(service, 'GET', '/api/me', { headers: { cookie: 'parley_session=forged' } }), 401, 'unauthorized');
  });
});

describe('https', () => {
  test('behind https the cookie is __Host- and Secure', async () => {
    const secure = await startService({ workers: false, env: { PARLEY_PUBLIC_URL: 'https://parley.example.com' } });
    try {
      const ws = (await secure.admin('POST', '/workspaces', { name: 'Secure', ownerEmail: 'secure@example.org' })).body.data.id;
      const url = (await secure.admin('POST', `/workspaces/${ws}/sign-in-links`, {})).body.data.url as string;
      assert.match(url, /^https:\/\/parley\.example\.com\/app\/sign-in\?token=/);
      const reply = await appCall(secure, 'POST', '/sign-in', { body: { token: tokenOf(url) } });
      const line = reply.headers.getSetCookie()[0]!;
      assert.match(line, /^__Host-parley_session=/);
      assert.match(line, /Secure/);
    } finally {
      await secure.close();
    }
  });
});
