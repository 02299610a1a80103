import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { bounded, printed, run, startMain, stopAll, waitFor, type Running } from '../../../test/support/processes.ts';
import { storeUnderTest } from '../../../test/support/stores.ts';

const SIGN_IN_LINK = /Sign-in link \(24 hours\):/;

/** Signs in with a link's token as the page's button does; the session cookie, or the refusal's status. */
async function useLink(base: string, link: string): Promise<{ status: number; cookie?: string }> {
  const token = new URL(link).searchParams.get('token')!;
  const reply = await fetch(`${base}/app/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }), redirect: 'manual' });
  return { status: reply.status, cookie: reply.headers.getSetCookie()[0]?.split(';')[0] };
}

describe("first start: Demo's owner signs in with the printed link", { skip: storeUnderTest() !== 'embedded' && 'the first start is tried on the embedded pass' }, () => {
  let dataDir: string;
  let first: Running;

  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'parley-people-'));
    first = await startMain({ PARLEY_DATA_DIR: dataDir, PARLEY_OWNER_EMAIL: 'boss@example.org' });
    await waitFor(first, /Try: curl/, 10_000);
  });
  after(async () => {
    await stopAll();
    await rm(dataDir, { recursive: true, force: true });
  });

  test('the first start prints a one-time sign-in link after the operator token; it signs PARLEY_OWNER_EMAIL in as owner of Demo, once', async () => {
    const output = first.output();
    assert.match(output, /Operator token \(shown once\): pa_\S+\n {2}Sign-in link \(24 hours\): {5}http:\/\/localhost:\d+\/app\/sign-in\?token=[0-9A-Za-z]{48}\n/);
    const link = printed(output, SIGN_IN_LINK)!;
    const signedIn = await useLink(first.url, link);
    assert.equal(signedIn.status, 303);
    const me = await (await fetch(`${first.url}/app/api/me`, { headers: { cookie: signedIn.cookie! } })).json();
    assert.equal(me.data.person.email, 'boss@example.org');
    assert.equal(me.data.role, 'owner');
    assert.equal(me.data.workspace.name, 'Demo');
    assert.equal((await useLink(first.url, link)).status, 401);
  });

  test('`parley admin sign-in-link --workspace` prints a fresh link for the owner, or for --email', async () => {
    const workspaceId = printed(first.output(), /Workspace id:/)!;
    const env = { PARLEY_DATA_DIR: dataDir, PORT: String(first.port) };
    const cli = await run(['bin/parley.js', 'admin', 'sign-in-link', '--workspace', workspaceId], env);
    assert.equal(await bounded(cli.exited, 30_000, 'sign-in-link'), 0, cli.output());
    const reply = JSON.parse(cli.output());
    assert.equal(reply.data.email, 'boss@example.org');
    assert.equal((await useLink(first.url, reply.data.url)).status, 303);
    const stranger = await run(['bin/parley.js', 'admin', 'sign-in-link', '--workspace', workspaceId, '--email', 'stranger@example.org'], env);
    assert.equal(await bounded(stranger.exited, 30_000, 'sign-in-link'), 1);
    assert.match(stranger.output(), /invalid_request/);
  });
});
