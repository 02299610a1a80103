import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { stat, readFile } from 'node:fs/promises';
import path from 'node:path';
import { startService, type SeededWorkspace, type Service } from '../../../test/support/harness.ts';
import { seedAgent } from '../../../test/support/seed-agent.ts';
import { openSecret, parseSecretKey, SECRET_KEY_FILE } from '../../platform/crypto.ts';
import { seedTexts } from '../chat/test-support.ts';
import { startSmtpCapture, type SmtpCapture } from '../mail/test-support.ts';
import { LEASE_SECONDS, lookIntoMailbox } from './imap.ts';
import type { Resolver } from './service.ts';
import { connect } from '../../mcp/test-support.ts';
import { signIn } from '../people/test-support.ts';
import { dovecotMissing, startDovecot, type Dovecot } from './imap-test-support.ts';
import { testResolver } from './test-support.ts';

const AGENT_ADDRESS = 'help@bikes.example';
const QUESTION = 'When is the workshop open on Saturday?';
const resolver = testResolver({});

function mail(from: string, id: string, text = QUESTION): string {
  return [
    `Return-Path: <${from}>`,
    'Received: from mx.visitor.example (mx.visitor.example [192.0.2.10]) by imap.bikes.example; Thu, 26 Nov 2026 10:00:00 +0000',
    `From: Visitor <${from}>`,
    `To: ${AGENT_ADDRESS}`,
    'Subject: Saturday',
    `Message-ID: <${id}>`,
    'Date: Thu, 26 Nov 2026 10:00:00 +0000',
    'Content-Type: text/plain; charset=utf-8',
    '',
    text,
    '',
  ].join('\n');
}

describe('the e-mail channel over IMAP, against a dovecot of the test’s own', { skip: dovecotMissing() }, () => {
  let smtp: SmtpCapture;
  let dovecot: Dovecot;
  let service: Service;
  let ws: SeededWorkspace;
  let agent: string;

  before(async () => {
    smtp = await startSmtpCapture();
    dovecot = await startDovecot();
    service = await startService({
      // Looks are made by the tests themselves; the worker's own would come only after an hour.
      env: { SMTP_URL: smtp.url, PARLEY_RATE_LIMIT_PER_MINUTE: '100000', PARLEY_PUBLIC_URL: 'https://parley.example.net', PARLEY_ALLOW_PRIVATE_URLS: '1', PARLEY_MAIL_IMAP_POLL_SECONDS: '3600' },
    });
    ws = await service.seedWorkspace({ plan: 'enterprise' });
    agent = await seedAgent(service, ws, 'Bikes');
    await seedTexts(service, ws.keys.manage, agent, [{ title: 'Opening hours', content: 'Our workshop is open on Saturday from 10:00 to 16:00.' }]);
    const reply = await service.api('PATCH', `/agents/${agent}`, {
      key: ws.keys.manage,
      body: { emailChannel: { enabled: true, review: false, address: AGENT_ADDRESS, imap: { host: '127.0.0.1', port: dovecot.port, secure: false, user: dovecot.user, password: dovecot.password } } },
    });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
  });
  after(async () => {
    await service?.close();
    await dovecot?.close();
    await smtp?.close();
  });

  async function mailsTo(recipient: string): Promise<number> {
    return (await service.ctx.db.selectFrom('mails').select('id').where('recipient', '=', recipient).execute()).length;
  }

  async function look() {
    return lookIntoMailbox(service.ctx, agent, { resolver });
  }

  test('the password is write-only: the agent shows passwordSet, and the row keeps it sealed with the key made in the data directory (owner-only file)', async () => {
    const reply = await service.api('GET', `/agents/${agent}`, { key: ws.keys.read });
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.body.data.emailChannel.imap, { host: '127.0.0.1', port: dovecot.port, secure: false, user: dovecot.user, folder: 'INBOX', moveTo: null, passwordSet: true });
    assert.ok(!JSON.stringify(reply.body).includes(dovecot.password));
    const row = await service.ctx.db.selectFrom('email_mailboxes').selectAll().where('agent_id', '=', agent).executeTakeFirstOrThrow();
    assert.ok(!row.password_sealed.includes(dovecot.password), 'not stored in the clear');
    const keyFile = path.join(service.ctx.config.dataDir, SECRET_KEY_FILE);
    assert.equal((await stat(keyFile)).mode & 0o777, 0o600);
    assert.equal(openSecret(parseSecretKey(await readFile(keyFile, 'utf8')), row.password_sealed), dovecot.password);
    const stored = await service.ctx.db.selectFrom('agents').select('settings').where('id', '=', agent).executeTakeFirstOrThrow();
    assert.ok(!JSON.stringify(stored.settings).includes(dovecot.password), 'nor in the agent’s settings');
  });

  test('a mailbox needs a host, a user and a password', async () => {
    const other = await seedAgent(service, ws, 'Other');
    const missing = await service.api('PATCH', `/agents/${other}`, { key: ws.keys.manage, body: { emailChannel: { imap: { host: '127.0.0.1', user: 'x' } } } });
    assert.equal(missing.status, 400, JSON.stringify(missing.body));
    assert.equal(missing.body.error.code, 'invalid_request');
    assert.ok(missing.body.error.details.some((d: { field: string }) => d.field === 'emailChannel.imap.password'), JSON.stringify(missing.body.error));
  });

  test('the stored password goes only where it was given: another host, port, user or TLS setting needs the password again', async () => {
    const other = await seedAgent(service, ws, 'Repointed');
    const imap = { host: '127.0.0.1', port: dovecot.port, secure: false, user: dovecot.user };
    const set = await service.api('PATCH', `/agents/${other}`, { key: ws.keys.manage, body: { emailChannel: { imap: { ...imap, password: 'OWNERS-SECRET' } } } });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    for (const change of [{ host: 'localhost' }, { port: dovecot.port + 1 }, { secure: true }, { user: 'someone-else' }]) {
      const reply = await service.api('PATCH', `/agents/${other}`, { key: ws.keys.manage, body: { emailChannel: { imap: change } } });
      assert.equal(reply.status, 400, `${JSON.stringify(change)}: ${JSON.stringify(reply.body)}`);
      assert.equal(reply.body.error.code, 'invalid_request');
      assert.ok(reply.body.error.details.some((d: { field: string }) => d.field === 'emailChannel.imap.password'), JSON.stringify(reply.body.error));
    }
    const kept = await service.api('GET', `/agents/${other}`, { key: ws.keys.read });
    assert.deepEqual(kept.body.data.emailChannel.imap, { ...imap, folder: 'INBOX', moveTo: null, passwordSet: true });
    // the folder alone keeps the password; a new host with its own password is fine
    const folder = await service.api('PATCH', `/agents/${other}`, { key: ws.keys.manage, body: { emailChannel: { imap: { folder: 'Support' } } } });
    assert.equal(folder.status, 200, JSON.stringify(folder.body));
    const moved = await service.api('PATCH', `/agents/${other}`, { key: ws.keys.manage, body: { emailChannel: { imap: { host: 'localhost', password: 'another password' } } } });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    const row = await service.ctx.db.selectFrom('email_mailboxes').selectAll().where('agent_id', '=', other).executeTakeFirstOrThrow();
    assert.equal(openSecret(parseSecretKey(await readFile(path.join(service.ctx.config.dataDir, SECRET_KEY_FILE), 'utf8')), row.password_sealed), 'another password');
  });

  test('a mail in the mailbox is answered once, threaded from the agent’s address, and marked read where it lies', async () => {
    const sender = 'ana@visitor.example';
    const uid = await dovecot.append(mail(sender, 'imap-ana-1@visitor.example'));
    const result = await look();
    assert.deepEqual(result, { taken: 1, error: null });
    const reply = await smtp.waitFor((m) => m.to.includes(sender));
    assert.match(reply.from, /<help@bikes\.example>/);
    assert.equal(reply.headers.get('in-reply-to'), '<imap-ana-1@visitor.example>');
    assert.match(reply.text, /10:00/);
    assert.ok((await dovecot.flags()).get(uid)?.has('\\Seen'), 'marked read');
    const conversations = await service.api('GET', `/agents/${agent}/conversations?channel=email`, { key: ws.keys.read });
    assert.ok(conversations.body.data.some((c: { from: string }) => c.from === sender));
  });

  test('two workers at once, a mail made unread again, and a worker that died before writing how far it read: each mail still taken once', async () => {
    const senders = ['bo@visitor.example', 'cy@visitor.example'];
    await dovecot.append(mail(senders[0]!, 'imap-bo-1@visitor.example'));
    await dovecot.append(mail(senders[1]!, 'imap-cy-1@visitor.example'));
    const [first, second] = await Promise.all([look(), look()]);
    assert.equal((first?.taken ?? 0) + (second?.taken ?? 0), 2, 'both mails taken, by whichever worker held the mailbox');
    assert.ok(first === undefined || second === undefined, 'one worker looks at a time');
    for (const sender of senders) await smtp.waitFor((m) => m.to.includes(sender));

    // Read state lost in the mailbox (someone marked it all unread): the UIDs handled are in the database.
    await dovecot.markUnread();
    assert.deepEqual(await look(), { taken: 0, error: null });
    // And the database's record of how far it read lost too (a worker that died between mail and record):
    // the mails are read again, and their Message-IDs keep them from being answered twice.
    await service.ctx.db.updateTable('email_mailboxes').set({ last_uid: 0 }).where('agent_id', '=', agent).execute();
    const again = await look();
    assert.equal(again?.error, null);
    assert.ok((again?.taken ?? 0) >= 3);
    for (const sender of [...senders, 'ana@visitor.example']) assert.equal(await mailsTo(sender), 1, `one answer to ${sender}`);
  });

  test('the lease is renewed after each mail, and a look that lost its lease to another worker stops before the next mail', async () => {
    const senders = ['lee@visitor.example', 'lou@visitor.example'];
    await dovecot.append(mail(senders[0]!, 'imap-lee-1@visitor.example'));
    await dovecot.append(mail(senders[1]!, 'imap-lou-1@visitor.example'));
    const leases: Array<Date | null> = [];
    // While the first mail is handled (its SPF lookup), the lease runs out and another worker takes the mailbox.
    const stealing: Resolver = async (name, rrtype) => {
      const row = await service.ctx.db.selectFrom('email_mailboxes').select(['leased_until', 'leased_by']).where('agent_id', '=', agent).executeTakeFirstOrThrow();
      leases.push(row.leased_until);
      await service.ctx.db.updateTable('email_mailboxes').set({ leased_by: 'another-worker', leased_until: new Date(Date.now() + 60_000) }).where('agent_id', '=', agent).execute();
      return resolver(name, rrtype);
    };
    const result = await lookIntoMailbox(service.ctx, agent, { resolver: stealing });
    assert.equal(result?.taken, 1, JSON.stringify(result));
    assert.match(result?.error ?? '', /taken by another worker/);
    const row = await service.ctx.db.selectFrom('email_mailboxes').selectAll().where('agent_id', '=', agent).executeTakeFirstOrThrow();
    assert.equal(row.leased_by, 'another-worker', 'the other worker’s lease is left alone');
    await smtp.waitFor((m) => m.to.includes(senders[0]!));
    assert.equal(await mailsTo(senders[1]!), 0, 'the second mail waits for the worker holding the mailbox');

    // The other worker's lease is gone: the next look takes the second mail and a third. While it handles the
    // second, its lease is made to run out (not taken by anyone); written progress renews it before the third.
    await dovecot.append(mail('lin@visitor.example', 'imap-lin-1@visitor.example'));
    await service.ctx.db.updateTable('email_mailboxes').set({ leased_by: null, leased_until: null }).where('agent_id', '=', agent).execute();
    const seen: Array<Date | null> = [];
    const watching: Resolver = async (name, rrtype) => {
      const row = await service.ctx.db.selectFrom('email_mailboxes').select('leased_until').where('agent_id', '=', agent).executeTakeFirstOrThrow();
      seen.push(row.leased_until === null ? null : new Date(row.leased_until));
      if (seen.length === 1) await service.ctx.db.updateTable('email_mailboxes').set({ leased_until: new Date(0) }).where('agent_id', '=', agent).execute();
      return resolver(name, rrtype);
    };
    const started = service.ctx.clock.now().getTime();
    assert.deepEqual(await lookIntoMailbox(service.ctx, agent, { resolver: watching }), { taken: 2, error: null });
    await smtp.waitFor((m) => m.to.includes(senders[1]!));
    await smtp.waitFor((m) => m.to.includes('lin@visitor.example'));
    const renewed = seen.at(-1);
    assert.ok(renewed && renewed.getTime() >= started + LEASE_SECONDS * 1000, `renewed after the second mail: ${JSON.stringify(seen)}`);
    assert.ok(leases.length > 0);
  });

  test('with moveTo, a handled mail leaves the folder for that one', async () => {
    const patched = await service.api('PATCH', `/agents/${agent}`, { key: ws.keys.manage, body: { emailChannel: { imap: { moveTo: 'Handled' } } } });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    const sender = 'dee@visitor.example';
    await dovecot.append(mail(sender, 'imap-dee-1@visitor.example'));
    const before = (await dovecot.flags('Handled')).size;
    assert.equal((await look())?.taken, 1);
    await smtp.waitFor((m) => m.to.includes(sender));
    assert.equal((await dovecot.flags('Handled')).size, before + 1, 'moved to Handled');
    assert.ok([...(await dovecot.flags('INBOX')).values()].every((flags) => flags.has('\\Seen')), 'nothing unread left behind');
  });

  test('a host on a private address is refused unless PARLEY_ALLOW_PRIVATE_URLS; a wrong password is kept as the mailbox’s error, and nothing is taken', async () => {
    service.ctx.config.allowPrivateUrls = false;
    try {
      const refused = await look();
      assert.equal(refused?.taken, 0);
      assert.match(refused?.error ?? '', /not a public address/);
    } finally {
      service.ctx.config.allowPrivateUrls = true;
    }
    const wrong = await service.api('PATCH', `/agents/${agent}`, { key: ws.keys.manage, body: { emailChannel: { imap: { password: 'not-the-password' } } } });
    assert.equal(wrong.status, 200);
    const sender = 'eve@visitor.example';
    await dovecot.append(mail(sender, 'imap-eve-1@visitor.example'));
    const failed = await look();
    assert.equal(failed?.taken, 0);
    assert.match(failed?.error ?? '', /refused the user name or password/);
    const row = await service.ctx.db.selectFrom('email_mailboxes').select('last_error').where('agent_id', '=', agent).executeTakeFirstOrThrow();
    assert.equal(row.last_error, failed?.error);
    // The right password again: the mail waiting is taken.
    await service.api('PATCH', `/agents/${agent}`, { key: ws.keys.manage, body: { emailChannel: { imap: { password: dovecot.password } } } });
    assert.equal((await look())?.taken, 1);
    await smtp.waitFor((m) => m.to.includes(sender));
  });

  test('removing the mailbox (imap null) deletes its sealed password', async () => {
    const reply = await service.api('PATCH', `/agents/${agent}`, { key: ws.keys.manage, body: { emailChannel: { imap: null } } });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    assert.equal(reply.body.data.emailChannel.imap, undefined);
    assert.equal(await service.ctx.db.selectFrom('email_mailboxes').select('agent_id').where('agent_id', '=', agent).executeTakeFirst(), undefined);
  });
});

describe('the mailbox is saved by every surface that changes an agent (the e-mail channel’s verb updateAgentWithMailbox)', () => {
  let service: Service;
  let ws: SeededWorkspace;

  before(async () => {
    service = await startService({ env: { PARLEY_RATE_LIMIT_PER_MINUTE: '100000', PARLEY_MAIL_IMAP_POLL_SECONDS: '3600' } });
    ws = await service.seedWorkspace({ plan: 'enterprise' });
  });
  after(async () => {
    await service?.close();
  });

  async function sealedPassword(agentId: string): Promise<string | undefined> {
    const row = await service.ctx.db.selectFrom('email_mailboxes').select('password_sealed').where('agent_id', '=', agentId).executeTakeFirst();
    return row && openSecret(parseSecretKey(await readFile(path.join(service.ctx.config.dataDir, SECRET_KEY_FILE), 'utf8')), row.password_sealed);
  }
  const imap = (password: string) => ({ emailChannel: { imap: { host: 'imap.bikes.example', user: 'help', password } } });

  test('PATCH /agents/{id}, its /app/api/v1 copy and the MCP tool update_agent each seal the password into the mailbox row', async () => {
    const viaRest = await seedAgent(service, ws, 'Rest');
    assert.equal((await service.api('PATCH', `/agents/${viaRest}`, { key: ws.keys.manage, body: imap('rest password') })).status, 200);
    assert.equal(await sealedPassword(viaRest), 'rest password');

    const viaDashboard = await seedAgent(service, ws, 'Dashboard');
    const owner = await signIn(service, ws.id, 'owner@example.com');
    const patched = await owner.call('PATCH', `/api/v1/agents/${viaDashboard}`, imap('dashboard password'));
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal(await sealedPassword(viaDashboard), 'dashboard password');

    const viaMcp = await seedAgent(service, ws, 'Mcp');
    const mcp = await connect(service, ws.keys.manage);
    try {
      const updated = (await mcp.ok('update_agent', { id: viaMcp, ...imap('mcp password') })) as { data: { emailChannel: { imap: { passwordSet: boolean } } } };
      assert.equal(updated.data.emailChannel.imap.passwordSet, true);
    } finally {
      await mcp.close();
    }
    assert.equal(await sealedPassword(viaMcp), 'mcp password');
  });
});
