/** The settings owners have against abuse (docs/security.md): a daily credit cap per agent and the widget's proof-of-work. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { startService, type SeededWorkspace, type Service } from '../../../test/support/harness.ts';
import { seedAgent } from '../../../test/support/seed-agent.ts';
import { assertError } from '../../../test/support/assertions.ts';
import { hostPage, launchChromium, startHostSite, type HostSite } from '../widget/browser.ts';
import { solvedProof, visitorRequest, type VisitorRequest } from './test-support.ts';

const SITE = 'https://shop.example.com';

describe('settings owners have', () => {
  let service: Service;
  let ws: SeededWorkspace;

  before(async () => {
    service = await startService({ workers: false, env: { PARLEY_RATE_LIMIT_PER_MINUTE: '100000' } });
    ws = await service.seedWorkspace({ plan: 'agency' });
  });
  after(async () => service?.close());

  const patch = (agent: string, body: Record<string, unknown>) => service.api('PATCH', `/agents/${agent}`, { key: ws.keys.manage, body });
  const chat = (agent: string, message: string, options: VisitorRequest = {}) => visitorRequest(service, 'POST', `/agents/${agent}/chat`, { ...options, body: { message } });
  const creditsUsed = async () => (await service.api('GET', '/workspace', { key: ws.keys.read })).body.data.workspace.credits.usedThisMonth as number;

  describe('a daily credit cap per agent (limits.dailyCredits)', () => {
    test('the settings: null by default, a whole number from 0, strict', async () => {
      const agent = await seedAgent(service, ws, 'Settings');
      const fresh = (await service.api('GET', `/agents/${agent}`, { key: ws.keys.read })).body.data;
      assert.deepEqual(fresh.limits, { dailyCredits: null });
      assert.equal(fresh.proofOfWork, false);
      const set = await patch(agent, { limits: { dailyCredits: 250 }, proofOfWork: true });
      assert.equal(set.status, 200, JSON.stringify(set.body));
      assert.deepEqual(set.body.data.limits, { dailyCredits: 250 });
      assert.equal(set.body.data.proofOfWork, true);
      for (const [limits, field] of [
        [{ dailyCredits: -1 }, 'limits.dailyCredits'],
        [{ dailyCredits: 2.5 }, 'limits.dailyCredits'],
        [{ dailyCredits: '10' }, 'limits.dailyCredits'],
        [{ monthlyCredits: 10 }, 'limits'],
      ] as const) {
        const refused = await patch(agent, { limits });
        assertError(refused, 400, 'invalid_request');
        assert.ok(refused.body.error.details.some((d: { field: string }) => d.field.startsWith(field)), JSON.stringify(refused.body));
      }
      assertError(await patch(agent, { proofOfWork: 'yes' }), 400, 'invalid_request');
      assert.deepEqual((await patch(agent, { limits: { dailyCredits: null } })).body.data.limits, { dailyCredits: null });
    });

    test('beyond the cap every answer is 402 credits_exhausted, visitors’ and keys’ alike, nothing charged; the next UTC day it answers again', async () => {
      await service.admin('POST', '/clock', { now: '2026-11-10T12:00:00.000Z' });
      const agent = await seedAgent(service, ws, 'Capped');
      assert.equal((await patch(agent, { limits: { dailyCredits: 3 } })).status, 200);
      for (let i = 0; i < 2; i++) assert.equal((await chat(agent, `Question ${i}`, { origin: SITE })).status, 200);
      assert.equal((await service.api('POST', `/agents/${agent}/chat`, { key: ws.keys.chat, body: { message: 'From the owner' } })).status, 200);
      const used = await creditsUsed();
      const refused = await chat(agent, 'One more', { origin: SITE });
      assertError(refused, 402, 'credits_exhausted');
      assert.match(refused.body.error.message, /dailyCredits/);
      assertError(await service.api('POST', `/agents/${agent}/chat`, { key: ws.keys.chat, body: { message: 'From the owner' } }), 402, 'credits_exhausted');
      assertError(await visitorRequest(service, 'POST', `/agents/${agent}/chat`, { body: { message: 'Streamed', stream: true } }), 402, 'credits_exhausted');
      assert.equal(await creditsUsed(), used, 'a refused answer charges nothing');
      // Other agents of the workspace answer on.
      const other = await seedAgent(service, ws, 'Uncapped');
      assert.equal((await chat(other, 'Hello')).status, 200);
      // Raising the cap lets it answer at once; the next UTC day starts at zero.
      assert.equal((await patch(agent, { limits: { dailyCredits: 4 } })).status, 200);
      assert.equal((await chat(agent, 'After raising')).status, 200);
      assertError(await chat(agent, 'Beyond again'), 402, 'credits_exhausted');
      await service.admin('POST', '/clock', { now: '2026-11-11T00:00:01.000Z' });
      for (let i = 0; i < 4; i++) assert.equal((await chat(agent, `Next day ${i}`)).status, 200);
      assertError(await chat(agent, 'Beyond on the next day'), 402, 'credits_exhausted');
    });

    test('a cap of 0 stops the agent answering; concurrent questions never pass the cap', async () => {
      await service.admin('POST', '/clock', { now: '2026-11-12T12:00:00.000Z' });
      const agent = await seedAgent(service, ws, 'Stopped');
      assert.equal((await patch(agent, { limits: { dailyCredits: 0 } })).status, 200);
      assertError(await chat(agent, 'Hello'), 402, 'credits_exhausted');
      assert.equal((await patch(agent, { limits: { dailyCredits: 5 } })).status, 200);
      const statuses = await Promise.all(Array.from({ length: 12 }, (_, i) => chat(agent, `At once ${i}`, { from: `127.0.9.${i + 1}` }).then((r) => r.status)));
      assert.equal(statuses.filter((s) => s === 200).length, 5, JSON.stringify(statuses));
      assert.equal(statuses.filter((s) => s === 402).length, 7);
    });
  });

  describe('proof-of-work (proofOfWork)', () => {
    let agent: string;
    let other: string;
    before(async () => {
      agent = await seedAgent(service, ws, 'Guarded');
      other = await seedAgent(service, ws, 'Also guarded');
      for (const id of [agent, other]) assert.equal((await patch(id, { proofOfWork: true })).status, 200);
    });

    test('the public settings say so and GET …/challenge gives a signed challenge of the agent', async () => {
      assert.equal((await visitorRequest(service, 'GET', `/agents/${agent}`)).body.data.proofOfWork, true);
      const reply = await visitorRequest(service, 'GET', `/agents/${agent}/challenge`, { origin: SITE });
      assert.equal(reply.status, 200);
      const { parameters, signature } = reply.body.data;
      assert.equal(parameters.algorithm, 'SHA-256');
      assert.deepEqual(parameters.data, { agent });
      assert.match(signature, /^[0-9a-f]{64}$/);
      assert.ok(parameters.expiresAt > Date.now() / 1000);
    });

    test('a question without a solution is 400 invalid_request naming x-visitor-proof, from a page and from a server alike', async () => {
      for (const origin of [SITE, undefined]) {
        const refused = await chat(agent, 'Hello', { origin });
        assertError(refused, 400, 'invalid_request');
        assert.equal(refused.body.error.details[0].field, 'x-visitor-proof');
        assert.match(refused.body.error.details[0].message, /required/);
      }
    });

    test('a solved challenge admits one question; used again it is 400; another agent’s solution and garbage are 400', async () => {
      const proof = await solvedProof(service, agent);
      const answered = await chat(agent, 'When are you open?', { origin: SITE, headers: { 'x-visitor-proof': proof } });
      assert.equal(answered.status, 200, JSON.stringify(answered.body));
      const reused = await chat(agent, 'Again with the same', { origin: SITE, headers: { 'x-visitor-proof': proof } });
      assertError(reused, 400, 'invalid_request');
      assert.match(reused.body.error.message, /used already/);
      assertError(await chat(agent, 'With another agent’s', { headers: { 'x-visitor-proof': await solvedProof(service, other) } }), 400, 'invalid_request');
      for (const garbage of ['not base64 at all', Buffer.from('{"challenge":{}}').toString('base64'), 'x'.repeat(5000)]) {
        assertError(await chat(agent, 'Garbage', { headers: { 'x-visitor-proof': garbage } }), 400, 'invalid_request');
      }
      // A solution whose key is not the challenge's is refused.
      const forged = JSON.parse(Buffer.from(await solvedProof(service, agent), 'base64').toString());
      forged.solution.derivedKey = `${forged.solution.derivedKey.startsWith('0') ? '1' : '0'}${forged.solution.derivedKey.slice(1)}`;
      assertError(await chat(agent, 'Forged', { headers: { 'x-visitor-proof': Buffer.from(JSON.stringify(forged)).toString('base64') } }), 400, 'invalid_request');
      // The server-side caller solves it too, and is answered.
      assert.equal((await chat(agent, 'From a server', { headers: { 'x-visitor-proof': await solvedProof(service, agent) } })).status, 200);
    });

    test('the preflight allows the x-visitor-proof header; an agent without proofOfWork needs none', async () => {
      const preflight = await visitorRequest(service, 'OPTIONS', `/agents/${agent}/chat`, { origin: SITE, headers: { 'access-control-request-method': 'POST' } });
      assert.equal(preflight.status, 204);
      assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /x-visitor-proof/);
      const open = await seedAgent(service, ws, 'Open');
      assert.equal((await chat(open, 'Hello')).status, 200);
    });
  });
});

describe('the widget with proof-of-work, in a real browser', () => {
  let service: Service;
  let site: HostSite;
  let browser: Browser;

  before(async () => {
    service = await startService({ env: { PARLEY_RATE_LIMIT_PER_MINUTE: '100000' } });
    const ws = await service.seedWorkspace({ plan: 'studio' });
    const agent = await seedAgent(service, ws, 'Bike shop');
    site = await startHostSite();
    const patched = await service.api('PATCH', `/agents/${agent}`, { key: ws.keys.manage, body: { proofOfWork: true, allowedOrigins: [site.origin] } });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    site.page('/', { body: hostPage(`<script src="${service.url}/widget.js" data-agent="${agent}" defer></script>`) });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await site?.close();
    await service?.close();
  });

  test('the widget solves the challenges unseen: two questions in a row are answered', async () => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${site.origin}/`);
    await page.locator('[data-parley] >> css=button.launcher').click();
    const rated = page.locator('[data-parley] .msg.agent .rate');
    for (const [index, question] of ['When are you open?', 'And on Sunday?'].entries()) {
      await page.locator('[data-parley] textarea').fill(question);
      await page.locator('[data-parley] textarea').press('Enter');
      await rated.nth(index).waitFor({ timeout: 30_000 });
    }
    assert.equal(await rated.count(), 2);
  });
});
