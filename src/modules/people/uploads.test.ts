/**
 * Spec 1.5 and 4.6: a person uploads file sources from the computer, one or several in
 * a request, with the same kinds, limits, storage allowance and reader as a file source
 * by address (docs/people.md, "Uploading files").
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { sql } from 'kysely';
import { startService, type SeededWorkspace, type Service } from '../../../test/support/harness.ts';
import { assertError } from '../../../test/support/assertions.ts';
import { seedAgent } from '../../../test/support/seed-agent.ts';
import { newId } from '../../platform/ids.ts';
import { PLANS } from '../../domain/plans.ts';
import { makeDocx, makePdf, waitForSource } from '../knowledge/test-support.ts';
import { addPerson, formOf, sendForm, signIn, type SignedIn } from './test-support.ts';

const MB = 1024 * 1024;
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a5d2b1e70000000049454e44ae426082', 'hex');

let service: Service;
let ws: SeededWorkspace;
let owner: SignedIn;
let agentId: string;
let counter = 0;

before(async () => {
  service = await startService({ env: { PARLEY_RATE_LIMIT_PER_MINUTE: '100000' } });
  ws = await service.seedWorkspace({ name: 'Uploads', plan: 'studio' });
  owner = await signIn(service, ws.id, 'owner@example.com');
  agentId = await seedAgent(service, ws, 'Library');
});
after(async () => {
  await service.close();
});

const upload = (person: SignedIn, agent: string, form: FormData) => sendForm(service, person, `/api/agents/${agent}/sources/upload`, form);

async function sourcesOf(agent: string, key = ws.keys.read): Promise<Array<{ id: string; name: string }>> {
  const reply = await service.api('GET', `/agents/${agent}/sources`, { key });
  assert.equal(reply.status, 200, JSON.stringify(reply.body));
  return reply.body.data;
}

/** An agent of a workspace of its own (plans limit agents per workspace), with its owner signed in. */
async function freshAgent(plan: string): Promise<{ ws: SeededWorkspace; agent: string; owner: SignedIn }> {
  const own = await service.seedWorkspace({ name: `Uploads ${++counter}`, plan });
  return { ws: own, agent: await seedAgent(service, own, 'Fresh'), owner: await signIn(service, own.id, 'owner@example.com') };
}

describe('uploading file sources (spec 1.5, 4.6 file rules)', () => {
  test('several files in one request: 201 with a pending source each, read by the file reader into ready sources', async () => {
    const pdf = await makePdf(['The return policy allows thirty days.']);
    const docx = await makeDocx(['Opening hours are nine to five.']);
    const reply = await upload(owner, agentId, formOf([
      ['policy.pdf', pdf],
      ['hours.docx', docx],
      ['notes.md', '# Notes\n\n- Parking is free on Sundays.\n'],
      ['../../etc/plain.txt', 'Shipping takes two days.'],
    ]));
    assert.equal(reply.status, 201, JSON.stringify(reply.body));
    const sources = reply.body.data as Array<{ id: string; type: string; name: string; url: string | null; status: string; sizeBytes: number }>;
    assert.deepEqual(sources.map((s) => s.name), ['policy.pdf', 'hours.docx', 'notes.md', 'plain.txt'], 'a path in a file name is dropped');
    assert.ok(sources.every((s) => s.type === 'file' && s.url === null && s.status === 'pending'));
    assert.equal(sources[0]!.sizeBytes, pdf.length);
    const me = (await owner.call('GET', '/api/me')).body.data;
    const audited = (await service.admin('GET', `/workspaces/${ws.id}/audit`)).body.data.filter((e: { action: string }) => e.action === 'source.create');
    for (const source of sources) {
      const entry = audited.find((e: { target: string }) => e.target === source.id);
      assert.deepEqual({ personId: entry?.personId, keyId: entry?.keyId }, { personId: me.person.id, keyId: null }, 'the audit log names the person');
    }
    for (const [i, text] of ['thirty days', 'nine to five', 'Parking is free', 'two days'].entries()) {
      const ready = await waitForSource(service, ws.keys.read, agentId, sources[i]!.id, 60_000);
      assert.equal(ready.status, 'ready', JSON.stringify(ready));
      assert.match(ready.content, new RegExp(text));
    }
  });

  test('a file of another kind (told from its bytes, not its name) is 415 unsupported_file_type, and none of the request is stored', async () => {
    const { agent, owner: person, ws: own } = await freshAgent('studio');
    for (const bad of [[['picture.txt', PNG]], [['page.md', '<!doctype html><html><body>hi</body></html>']], [['empty.txt', '']]] as Array<Array<[string, Uint8Array | string]>>) {
      assertError(await upload(person, agent, formOf([['fine.txt', 'A fine text file.'], ...bad])), 415, 'unsupported_file_type');
    }
    assert.deepEqual(await sourcesOf(agent, own.keys.read), []);
  });

  test('files together past the storage allowance left are 402 storage_limit_reached, refused while they arrive', async () => {
    const { agent, owner: person, ws: own } = await freshAgent('studio');
    const left = 64 * 1024;
    await sql`insert into sources (id, workspace_id, agent_id, type, name, status, size_bytes, content, created_at)
      values (${newId('src')}, ${own.id}, ${agent}, 'text', 'filler', 'ready', ${PLANS.studio.storagePerAgentBytes - left}, '', ${service.ctx.clock.now()})`.execute(service.ctx.db);
    const half = Buffer.alloc(40 * 1024, 'abcdefgh\n');
    assertError(await upload(person, agent, formOf([['a.txt', half], ['b.txt', half]])), 402, 'storage_limit_reached');
    assertError(await upload(person, agent, formOf([['big.txt', Buffer.alloc(2 * MB, 'abcdefgh\n')]])), 402, 'storage_limit_reached');
    assert.equal((await sourcesOf(agent, own.keys.read)).length, 1, 'only the filler');
    assert.deepEqual(await readdir(join(service.ctx.config.dataDir, 'uploads')), [], 'the refused files are gone from the disk');
    const fits = await upload(person, agent, formOf([['a.txt', half]]));
    assert.equal(fits.status, 201, JSON.stringify(fits.body));
    assert.deepEqual(await readdir(join(service.ctx.config.dataDir, 'uploads')), [], 'stored in the database, the file is gone from the disk');
  });

  test('a file over 50 MB is 413 file_too_large (not a 500), on a plan with more storage than that', async () => {
    assert.ok(PLANS.agency.storagePerAgentBytes > 50 * MB);
    const { agent, owner: person, ws: own } = await freshAgent('agency');
    assertError(await upload(person, agent, formOf([['huge.txt', Buffer.alloc(50 * MB + 1, 'abcdefgh\n')]])), 413, 'file_too_large');
    assert.deepEqual(await sourcesOf(agent, own.keys.read), []);
  });

  test('while files are still arriving the agent is busy: a retrain is 409 agent_busy (spec 4.6)', async () => {
    const { agent, owner: person, ws: own } = await freshAgent('studio');
    const boundary = 'parley-test-boundary';
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="slow.txt"\r\nContent-Type: text/plain\r\n\r\nThe first half of a slow file, `));
        await gate;
        controller.enqueue(Buffer.from(`and its second half.\r\n--${boundary}--\r\n`));
        controller.close();
      },
    });
    const pending = fetch(`${service.url}/app/api/agents/${agent}/sources/upload`, {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, cookie: person.cookie, origin: person.origin, 'x-csrf-token': person.csrfToken },
      body,
      duplex: 'half',
    } as RequestInit);
    const until = Date.now() + 10_000;
    while ((await service.ctx.db.selectFrom('file_fetches').select('id').where('agent_id', '=', agent).execute()).length === 0) {
      assert.ok(Date.now() < until, 'the upload was recorded');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assertError(await service.api('POST', `/agents/${agent}/retrain`, { key: own.keys.manage }), 409, 'agent_busy');
    release();
    const reply = await pending;
    assert.equal(reply.status, 201, await reply.text());
  });

  test('no file, a part of another name, a field, or a JSON body is 400 invalid_request', async () => {
    assertError(await upload(owner, agentId, new FormData()), 400, 'invalid_request');
    assertError(await upload(owner, agentId, formOf([['a.txt', 'text']], {}, 'document')), 400, 'invalid_request');
    assertError(await upload(owner, agentId, formOf([['a.txt', 'text']], { name: 'x' })), 400, 'invalid_request');
    assertError(await owner.call('POST', `/api/agents/${agentId}/sources/upload`, { file: 'text' }), 400, 'invalid_request');
    assertError(await upload(owner, agentId, formOf(Array.from({ length: 21 }, (_, i) => [`f${i}.txt`, 'text'] as [string, string]))), 400, 'invalid_request');
  });

  test('a member limited to other agents gets 404 not_found; another workspace\'s agent is 404; the CSRF token is needed', async () => {
    const other = await seedAgent(service, ws, 'Other library');
    const member = await addPerson(service, owner, `uploader${++counter}@example.org`, 'member', [other]);
    const before = (await sourcesOf(agentId)).length;
    assertError(await upload(member, agentId, formOf([['a.txt', 'text']])), 404, 'not_found');
    const foreign = await service.seedWorkspace({ name: 'Foreign uploads' });
    const foreignAgent = await seedAgent(service, foreign, 'Foreign');
    assertError(await upload(owner, foreignAgent, formOf([['a.txt', 'text']])), 404, 'not_found');
    assertError(await sendForm(service, owner, `/api/agents/${agentId}/sources/upload`, formOf([['a.txt', 'text']]), { csrf: null }), 403, 'forbidden');
    assert.equal((await sourcesOf(agentId)).length, before);
    const allowed = await upload(member, other, formOf([['a.txt', 'A member may add sources.']]));
    assert.equal(allowed.status, 201, JSON.stringify(allowed.body));
  });
});
