/**
 * The dashboard's team pages (issue 24, docs/dashboard.md "Settings", "Webhooks"): in Chromium,
 * on the store under test. People: an invitation accepted from the outbox link in another
 * browser, a role changed, the person removed (their session ends). Webhooks: one switched off
 * by seven failed attempts is switched on and delivers again to a local receiver, its
 * deliveries listed with every attempt. Passkeys: one added with Chromium's virtual
 * authenticator signs in from the sign-in page. axe and 375 px on each page; Dutch on one.
 *
 * WebAuthn refuses an IP address as relying party, so the service's public URL (and every
 * address the browser opens) is http://localhost:<port> here.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { expectFitsPhoneWidth, expectNoSeriousAxeViolations, startDashboard, type DashboardHarness } from '../../../test/support/dashboard.ts';
import { seedAgent } from '../../../test/support/seed-agent.ts';
import { latestMailTo, linkIn, signIn, type SignedIn } from '../people/test-support.ts';
import { enableLeads, leaveLead, startReceiver, type Receiver } from '../webhooks/test-support.ts';
import { RETRY_DELAYS_SECONDS } from '../webhooks/delivery.ts';

let dash: DashboardHarness;
let receiver: Receiver;
let base: string;
before(async () => {
  dash = await startDashboard({ env: { PARLEY_ALLOW_PRIVATE_URLS: '1', PARLEY_RATE_LIMIT_PER_MINUTE: '100000' } });
  base = dash.service.url.replace('127.0.0.1', 'localhost');
  dash.service.ctx.config.publicUrl = base;
  receiver = await startReceiver(() => dash.service.ctx.clock.now().getTime());
});
after(async () => {
  await receiver?.close();
  await dash?.close();
});

let counter = 0;
const uniqueEmail = (what: string) => `${what}${++counter}-${Date.now()}@example.org`;

/** The browser signed in as the person (the cookie of an operator link) and at `path`. */
async function openAs(page: Page, person: SignedIn, path: string): Promise<void> {
  const [name, value] = person.cookie.split('=') as [string, string];
  await page.context().addCookies([{ name, value, url: base }]);
  await page.goto(`${base}${path}`);
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
}

async function checkPage(page: Page, what: string): Promise<void> {
  await expectNoSeriousAxeViolations(page, what);
  await expectFitsPhoneWidth(page, what);
}

describe('Settings, People: invite, accept, change a role, remove', () => {
  test('an invitation accepted from its mail in another browser; the role changed to admin; removed, their session ends', async () => {
    const ownerEmail = uniqueEmail('owner');
    const ws = await dash.newWorkspace(ownerEmail, { name: 'Team pages' });
    const owner = await signIn(dash.service, ws, ownerEmail);
    const page = await dash.newPage();
    await openAs(page, owner, '/app/settings');
    await page.getByRole('heading', { name: 'Workspace' }).waitFor();
    const name = page.getByRole('textbox', { name: 'Workspace name' });
    await name.waitFor();
    assert.equal(await name.inputValue(), 'Team pages');
    await page.getByRole('heading', { name: 'Usage and plan' }).waitFor();
    await checkPage(page, 'the workspace settings');
    await name.fill('Team pages renamed');
    await page.getByRole('combobox', { name: 'Default language' }).selectOption('nl');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('banner').getByText('Team pages renamed').waitFor();
    const settings = (await owner.call('GET', '/api/workspace')).body.data;
    assert.deepEqual([settings.name, settings.language], ['Team pages renamed', 'nl']);

    await page.getByRole('link', { name: 'People' }).click();
    await page.getByRole('cell', { name: ownerEmail }).waitFor();
    await checkPage(page, 'the people page');

    const invitee = uniqueEmail('invitee');
    await page.getByRole('button', { name: 'Invite a person' }).click();
    const invite = page.getByRole('dialog', { name: 'Invite a person' });
    await invite.getByRole('textbox', { name: 'E-mail' }).fill(invitee);
    await invite.getByRole('combobox', { name: 'Role' }).selectOption('member');
    await invite.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByRole('status').filter({ hasText: `An invitation was mailed to ${invitee}` }).waitFor();
    await page.getByRole('button', { name: `Withdraw the invitation to ${invitee}` }).waitFor();
    await page.reload();
    await page.getByRole('table', { name: 'Invitations sent' }).getByRole('cell', { name: invitee, exact: true }).waitFor();

    // The invitee opens the mail's link in a browser of their own: signed in as a member.
    const theirs = await dash.newPage();
    const link = linkIn((await latestMailTo(dash.service, invitee)).text);
    await theirs.goto(link);
    await theirs.getByRole('navigation', { name: 'Main' }).waitFor();
    assert.equal(await theirs.getByRole('link', { name: 'Webhooks' }).count(), 0, 'a member sees no Webhooks');

    const desk = (await owner.call('POST', '/api/v1/agents', { name: 'Desk', useCase: 'support' })).body.data;
    await page.reload();
    await page.getByRole('button', { name: `Change role of ${invitee}` }).click();
    assert.equal(await page.getByRole('table', { name: 'Invitations sent' }).count(), 0, 'the accepted invitation is open no more');
    const change = page.getByRole('dialog', { name: `Change the role of ${invitee}` });
    await change.getByRole('combobox', { name: 'Role' }).selectOption('admin');
    await change.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: `The role of ${invitee} was changed.` }).waitFor();
    await page.getByRole('row', { name: new RegExp(invitee) }).getByText('Admin').waitFor();
    await theirs.reload();
    await theirs.getByRole('link', { name: 'Webhooks' }).waitFor();

    // Who is e-mailed each new lead of Desk: the invitee instead of the owner (the default).
    await page.getByRole('button', { name: 'Change who is e-mailed for Desk' }).click();
    const notify = page.getByRole('dialog', { name: 'Change who is e-mailed for Desk' });
    await notify.getByRole('group', { name: 'New leads' }).getByRole('radio', { name: 'These people' }).check();
    await notify.getByRole('group', { name: 'New leads' }).getByRole('checkbox', { name: invitee }).check();
    await notify.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved who is e-mailed for Desk.' }).waitFor();
    const chosen = (await owner.call('GET', `/api/agents/${desk.id}/notifications`)).body.data;
    assert.deepEqual([chosen.leads.chosen, chosen.leads.people.map((p: { email: string }) => p.email), chosen.tickets.chosen], [true, [invitee], false]);
    await page.getByRole('row', { name: /Desk/ }).getByText(invitee).waitFor();
    await checkPage(page, 'the people page with an agent');

    await page.getByRole('button', { name: `Remove ${invitee}` }).click();
    await page.getByRole('dialog', { name: `Remove ${invitee}` }).getByRole('button', { name: 'Remove' }).click();
    await page.getByRole('status').filter({ hasText: `${invitee} was removed.` }).waitFor();
    await page.getByRole('table', { name: 'People' }).getByRole('row', { name: new RegExp(invitee) }).waitFor({ state: 'detached' });
    await page.getByRole('table', { name: 'Who is e-mailed' }).getByRole('row', { name: /Desk/ }).getByText(/^The owner \(default\)/).first().waitFor();
    // Their session in the workspace ended at once: the next load is the sign-in page.
    await theirs.reload();
    await theirs.getByRole('button', { name: 'Send sign-in link' }).waitFor();

    // The audit log: who did what, filtered by action.
    await page.getByRole('link', { name: 'Audit log' }).click();
    await page.getByRole('cell', { name: 'person.remove' }).waitFor();
    for (const action of ['workspace.settings', 'person.invite', 'person.role']) await page.getByRole('cell', { name: action }).first().waitFor();
    await checkPage(page, 'the audit log');
    await page.getByRole('textbox', { name: /^Action/ }).fill('person.role');
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await page.getByRole('cell', { name: 'person.remove' }).waitFor({ state: 'detached' });
    // While the filtered entries load the table is not shown at all: wait for the new rows.
    await page.getByRole('cell', { name: 'person.role' }).waitFor();
    const rows = page.getByRole('table').getByRole('row');
    assert.equal(await rows.count(), 2, 'the heading row and the one role change');
    assert.match((await rows.nth(1).textContent())!, new RegExp(ownerEmail));
  });
});

describe('Webhooks: added with its secret shown once, switched off by failures, switched on, delivering again', () => {
  test('seven failed attempts switch the webhook off; "Switch on" makes the next lead arrive, and the deliveries list every attempt', async () => {
    const ws = await dash.service.seedWorkspace({ name: 'Hooks' });
    const agentId = await seedAgent(dash.service, ws, 'Shop');
    await enableLeads(dash.service, ws, agentId);
    const owner = await signIn(dash.service, ws.id);
    const page = await dash.newPage();
    await openAs(page, owner, '/app/webhooks');
    await page.getByText('No webhooks yet.').waitFor();
    await checkPage(page, 'the webhooks page, empty');

    const url = receiver.url('dashboard');
    await page.getByRole('button', { name: 'Add webhook' }).click();
    const add = page.getByRole('dialog', { name: 'Add webhook' });
    await add.getByRole('textbox', { name: 'Address' }).fill(url);
    await add.getByRole('button', { name: 'Add webhook' }).click();
    await page.getByRole('heading', { name: 'The signing secret' }).waitFor();
    receiver.secret = (await page.locator('.webhooks-secret-value').textContent())!;
    assert.match(receiver.secret, /^whsec_/);
    const [webhook] = (await owner.call('GET', '/api/v1/webhooks')).body.data;
    assert.equal(webhook.url, url);

    // Seven failed attempts (the first and six retries, the clock moved on): switched off.
    receiver.answer = 'fail';
    const before = receiver.received.length;
    await leaveLead(dash.service.url, agentId);
    await receiver.waitFor(before + 1);
    for (const [i, delay] of RETRY_DELAYS_SECONDS.entries()) {
      await dash.service.admin('POST', '/clock', { advanceSeconds: delay + Math.ceil(delay * 0.01) + 1 });
      await receiver.waitFor(before + i + 2);
    }
    for (let i = 0; (await owner.call('GET', `/api/v1/webhooks/${webhook.id}`)).body.data.active; i++) {
      assert.ok(i < 100, 'the webhook was not switched off');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    // The "switched off" mail links to /app/webhooks/<id>: the page with that webhook's deliveries open.
    await page.goto(`${base}/app/webhooks/${webhook.id}`);
    await page.getByText(/^Switched off/).waitFor();
    await page.getByRole('region', { name: `Deliveries to ${url}` }).getByText('Given up').waitFor();
    await checkPage(page, 'the webhooks page with one switched off');
    receiver.answer = 'ok';
    await page.getByRole('button', { name: `Switch on ${url}` }).click();
    await page.getByRole('status').filter({ hasText: `${url} is on again` }).waitFor();
    await page.getByText('On', { exact: true }).waitFor();

    const received = receiver.received.length;
    await leaveLead(dash.service.url, agentId, 'Noor Bakker');
    await receiver.waitFor(received + 1);
    const last = receiver.received.at(-1)!;
    assert.equal(last.answeredWith, 'ok');
    assert.ok(last.verified, 'signed with the secret the page showed');
    assert.equal(last.body.data.name, 'Noor Bakker');
    for (let i = 0; (await owner.call('GET', `/api/webhooks/${webhook.id}/deliveries`)).body.data[0].status !== 'delivered'; i++) {
      assert.ok(i < 100, 'the delivery was not recorded as delivered');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    const toggle = page.getByRole('button', { name: `Deliveries to ${url}` });
    await toggle.click(); // closes the list opened by the address
    await page.getByRole('region', { name: `Deliveries to ${url}` }).waitFor({ state: 'detached' });
    await toggle.click();
    const deliveries = page.getByRole('region', { name: `Deliveries to ${url}` });
    const rows = deliveries.getByRole('row');
    await rows.nth(2).waitFor();
    assert.equal(await rows.count(), 3, 'a heading row and two deliveries');
    const newest = rows.nth(1);
    await newest.getByText('Delivered').waitFor();
    assert.match((await newest.textContent())!, /status 200 · \d+ ms/);
    const failed = rows.nth(2);
    await failed.getByText('Given up').waitFor();
    assert.equal(await failed.getByRole('listitem').filter({ hasText: 'status 500' }).count(), 7);
    await checkPage(page, 'the webhooks page with deliveries');
  });
});

describe('My account: a passkey added, then used to sign in; the page in Dutch', () => {
  test('a passkey made with the virtual authenticator signs in from the sign-in page', async () => {
    const email = uniqueEmail('passkey');
    const ws = await dash.newWorkspace(email);
    const person = await signIn(dash.service, ws, email);
    const page = await dash.newPage();
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
    });
    await openAs(page, person, '/app/settings/account');
    await page.getByRole('heading', { name: 'Passkeys' }).waitFor();
    await page.getByRole('textbox', { name: /^Passkey name/ }).fill('Laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.getByRole('status').filter({ hasText: 'Laptop was added.' }).waitFor();
    await page.getByRole('cell', { name: 'Laptop', exact: true }).waitFor();
    await checkPage(page, 'my account with a passkey');

    await page.getByRole('button', { name: 'Sign out' }).click();
    const passkeyButton = page.getByRole('button', { name: 'Sign in with a passkey' });
    await passkeyButton.waitFor();
    await checkPage(page, 'the sign-in page with the passkey button');
    await passkeyButton.click();
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    const passkeys = await page.evaluate(async () => (await (await fetch('/app/api/me/passkeys')).json()).data);
    assert.equal(passkeys.length, 1);
    assert.ok(passkeys[0].lastUsedAt, 'the passkey was used to sign in');
    const me = await page.evaluate(async () => (await (await fetch('/app/api/me')).json()).data);
    assert.equal(me.person.email, email);

    // The interface language chosen on the account page: the page speaks Dutch.
    await page.goto(`${base}/app/settings/account`);
    await page.getByRole('combobox', { name: 'Interface language' }).selectOption('nl');
    await page.getByRole('button', { name: 'Save', exact: true }).first().click();
    await page.getByRole('heading', { name: 'Instellingen', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Mijn account' }).waitFor();
    await page.getByRole('button', { name: 'Passkey toevoegen' }).waitFor();
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'nl');
    await checkPage(page, 'my account in Dutch');
  });
});
