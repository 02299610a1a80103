import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { ADMIN_TOKEN, startService, type Service, type SeededWorkspace } from '../../../test/support/harness.ts';
import { seedAgent } from '../../../test/support/seed-agent.ts';
import { assertError } from '../../../test/support/assertions.ts';
import { apiProcessesOnPostgres, callAs, startMain, waitFor, type Running } from '../../../test/support/processes.ts';
import { storeUnderTest } from '../../../test/support/stores.ts';
import { utcMonth } from '../../platform/clock.ts';
import { versionNames } from '../../platform/versions.ts';
import { planOf } from '../../domain/plans.ts';
import { chargeCredits } from './credits.ts';
import { readStream, seedTexts, streamChat } from './test-support.ts';

const STUDIO_CREDITS = 10_000;
const env = { PARLEY_RATE_LIMIT_PER_MINUTE: '100000' };

describe('credits (offline model: 1 credit an answer)', () => {
  let service: Service;

  before(async () => {
    service = await startService({ env });
  });
  after(async () => service?.close());

  /** A studio workspace with one agent that knows the opening hours. */
  async function workspaceWithAgent(): Promise<{ ws: SeededWorkspace; agent: string }> {
    const ws = await service.seedWorkspace({ plan: 'studio' });
    const agent = await seedAgent(service, ws);
    await seedTexts(service, ws.keys.manage, agent, [{ title: 'Opening hours', content: 'The shop is open on Saturday from 10:00 to 16:00.' }]);
    return { ws, agent };
  }
  const ask = (ws: SeededWorkspace, agent: string, body: Record<string, unknown> = {}) =>
    service.api('POST', `/agents/${agent}/chat`, { key: ws.keys.chat, body: { message: 'When is the shop open on Saturday?', ...body } });
  const credits = async (ws: SeededWorkspace) => (await service.api('GET', '/workspace', { key: ws.keys.read })).body.data.workspace.credits;

  /** This month's usage written directly, as if the answers had been given. */
  async function setUsage(workspaceId: string, used: number): Promise<void> {
    const month = utcMonth(service.ctx.clock.now());
    await sql`insert into credit_usage (workspace_id, month, used) values (${workspaceId}, ${month}, ${used})
      on conflict (workspace_id, month) do update set used = excluded.used, from_packs = 0`.execute(service.ctx.db);
    await service.ctx.versions.bump(versionNames.workspace(workspaceId));
  }

  test('each answer’s credits show at once in GET /workspace, a test answer’s and a streamed answer’s too', async () => {
    const { ws, agent } = await workspaceWithAgent();
    assert.equal((await credits(ws)).usedThisMonth, 0);
    const reply = await ask(ws, agent);
    assert.equal(reply.body.data.credits, 1);
    assert.equal((await credits(ws)).usedThisMonth, 1);
    const test = await ask(ws, agent, { test: true });
    assert.equal(test.body.data.credits, 1);
    assert.equal((await credits(ws)).usedThisMonth, 2);
    await readStream(await streamChat(service, ws.keys.chat, agent, { message: 'When is the shop open on Saturday?' }));
    assert.equal((await credits(ws)).usedThisMonth, 3);
  });

  test('with the included credits used up the next answer is 402 credits_exhausted, JSON or stream, and nothing is recorded', async () => {
    const { ws, agent } = await workspaceWithAgent();
    await setUsage(ws.id, STUDIO_CREDITS - 1);
    assert.equal((await ask(ws, agent)).status, 200);
    assertError(await ask(ws, agent), 402, 'credits_exhausted');
    assertError(await ask(ws, agent, { test: true }), 402, 'credits_exhausted');
    assertError(await service.api('POST', `/agents/${agent}/chat`, { key: ws.keys.chat, body: { message: 'Hello?', stream: true } }), 402, 'credits_exhausted');
    const after = await credits(ws);
    assert.equal(after.usedThisMonth, STUDIO_CREDITS);
    const conversations = await service.api('GET', `/agents/${agent}/conversations`, { key: ws.keys.read });
    assert.equal(conversations.body.data.length, 1, 'only the answered question left a conversation');
  });

  test('purchased packs let answers continue past the included credits and are spent, then 402 again', async () => {
    const { ws, agent } = await workspaceWithAgent();
    await setUsage(ws.id, STUDIO_CREDITS);
    assertError(await ask(ws, agent), 402, 'credits_exhausted');
    const pack = await service.admin('POST', `/workspaces/${ws.id}/credit-packs`, { credits: 2 });
    assert.equal(pack.status, 201);
    assert.equal((await credits(ws)).purchased, 2);
    assert.equal((await ask(ws, agent)).status, 200);
    assert.deepEqual(await credits(ws), { usedThisMonth: STUDIO_CREDITS + 1, included: STUDIO_CREDITS, purchased: 1, overage: false });
    assert.equal((await ask(ws, agent, { test: true })).status, 200);
    assert.deepEqual(await credits(ws), { usedThisMonth: STUDIO_CREDITS + 2, included: STUDIO_CREDITS, purchased: 0, overage: false });
    assertError(await ask(ws, agent), 402, 'credits_exhausted');
  });

  test('included credits are spent before purchased ones', async () => {
    const { ws, agent } = await workspaceWithAgent();
    await setUsage(ws.id, STUDIO_CREDITS - 1);
    await service.admin('POST', `/workspaces/${ws.id}/credit-packs`, { credits: 5 });
    assert.equal((await ask(ws, agent)).status, 200);
    assert.equal((await credits(ws)).purchased, 5, 'the last included credit went first');
    assert.equal((await ask(ws, agent)).status, 200);
    assert.equal((await credits(ws)).purchased, 4);
  });

  test('erasing a conversation leaves the month’s usage as it was', async () => {
    const { ws, agent } = await workspaceWithAgent();
    const reply = await ask(ws, agent);
    const erased = await service.api('DELETE', `/agents/${agent}/conversations/${reply.body.data.conversationId}`, { key: ws.keys.manage });
    assert.equal(erased.status, 200);
    assert.equal((await credits(ws)).usedThisMonth, 1);
  });

  test('charges asked at once in one process are taken together, and exactly those asked after the credits ran out are refused, in the order asked', async () => {
    const { ws } = await workspaceWithAgent();
    const other = await workspaceWithAgent();
    await setUsage(ws.id, STUDIO_CREDITS - 3);
    await service.admin('POST', `/workspaces/${ws.id}/credit-packs`, { credits: 2 });
    await setUsage(other.ws.id, STUDIO_CREDITS - 1);
    // The first goes alone; the other eleven wait for it and are taken in one statement, the two workspaces mixed.
    const asked = Array.from({ length: 12 }, (_, i) => (i % 3 === 2 ? other.ws.id : ws.id));
    const settled = await Promise.allSettled(asked.map((workspaceId) => chargeCredits(service.ctx, workspaceId, planOf('studio'), 1)));
    const taken = settled.map((result, i) => ({ workspace: asked[i] === ws.id ? 'ws' : 'other', fromPacks: result.status === 'fulfilled' ? result.value.fromPacks : 'refused' }));
    assert.deepEqual(taken.filter((t) => t.workspace === 'ws').map((t) => t.fromPacks), [0, 0, 0, 1, 1, 'refused', 'refused', 'refused']);
    assert.deepEqual(taken.filter((t) => t.workspace === 'other').map((t) => t.fromPacks), [0, 'refused', 'refused', 'refused']);
    for (const result of settled) if (result.status === 'rejected') assert.equal(result.reason.code, 'credits_exhausted');
    assert.deepEqual(await credits(ws), { usedThisMonth: STUDIO_CREDITS + 2, included: STUDIO_CREDITS, purchased: 0, overage: false });
    assert.deepEqual(await credits(other.ws), { usedThisMonth: STUDIO_CREDITS, included: STUDIO_CREDITS, purchased: 0, overage: false });
  });

  test('a group of charges takes from each workspace and month exactly what the same charges taken one by one take', async () => {
    // Two workspaces charged by the group, their twins one charge at a time, from the same usage and packs: the
    // months alternate within a workspace, and each crosses its included credits and then its packs.
    const grouped = [await service.seedWorkspace({ plan: 'studio' }), await service.seedWorkspace({ plan: 'studio' })];
    const single = [await service.seedWorkspace({ plan: 'studio' }), await service.seedWorkspace({ plan: 'studio' })];
    for (const ws of [...grouped, ...single]) {
      await sql`insert into credit_usage (workspace_id, month, used, from_packs) values (${ws.id}, '2026-10', 7, 0), (${ws.id}, '2026-11', 4, 1)`.execute(service.ctx.db);
      await sql`update workspaces set purchased_credits = 5 where id = ${ws.id}`.execute(service.ctx.db);
    }
    const charges = [
      [0, '2026-11', 2], [0, '2026-11', 3], [0, '2026-10', 2], [0, '2026-11', 1], [0, '2026-12', 0], [0, '2026-11', 4], [0, '2026-10', 1], [0, '2026-11', 1],
      [1, '2026-10', 1], [1, '2026-10', 6], [1, '2026-10', 1],
    ] as const;
    const included = 8;
    const { rows } = await sql<{ taken: Array<number | null> }>`select charge_credits_each(${charges.map(([w]) => grouped[w].id)}::text[],
      ${charges.map(([, month]) => month)}::text[], ${charges.map(([, , credits]) => credits)}::integer[], ${charges.map(() => included)}::integer[]) as taken`.execute(service.ctx.db);
    const oneByOne: Array<number | null> = [];
    for (const [w, month, credits] of charges) {
      const one = await sql<{ taken: number | null }>`select charge_credits(${single[w].id}, ${month}, ${credits}::integer, ${included}::integer) as taken`.execute(service.ctx.db);
      oneByOne.push(one.rows[0].taken);
    }
    assert.deepEqual(rows[0].taken, oneByOne);
    assert.ok(oneByOne.includes(null) && oneByOne.some((taken) => taken !== null && taken > 0), `${oneByOne}`);
    const state = async (id: string) => ({
      usage: (await sql`select month, used, from_packs from credit_usage where workspace_id = ${id} order by month`.execute(service.ctx.db)).rows,
      packs: (await sql<{ purchased_credits: number }>`select purchased_credits from workspaces where id = ${id}`.execute(service.ctx.db)).rows[0].purchased_credits,
    });
    for (const w of [0, 1]) assert.deepEqual(await state(grouped[w].id), await state(single[w].id));
  });

  // Last in this suite: it moves the service's clock a month on.
  test('a new UTC month brings the included credits back; purchased credits carry over', async () => {
    const { ws, agent } = await workspaceWithAgent();
    await setUsage(ws.id, STUDIO_CREDITS);
    await service.admin('POST', `/workspaces/${ws.id}/credit-packs`, { credits: 3 });
    const now = service.ctx.clock.now();
    const nextMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1, 0, 0, 1));
    assert.equal((await service.admin('POST', '/clock', { now: nextMonth.toISOString() })).status, 200);
    assert.equal((await ask(ws, agent)).status, 200);
    assert.deepEqual(await credits(ws), { usedThisMonth: 1, included: STUDIO_CREDITS, purchased: 3, overage: false });
  });
});

describe('the plan: agents beyond it are paused, models above it are refused', () => {
  let service: Service;

  before(async () => {
    service = await startService({ env });
  });
  after(async () => service?.close());

  const ask = (ws: SeededWorkspace, agent: string, stream = false) => service.api('POST', `/agents/${agent}/chat`, { key: ws.keys.chat, body: { message: 'Hello?', stream } });
  const movePlan = async (ws: SeededWorkspace, plan: string) => assert.equal((await service.admin('PATCH', `/workspaces/${ws.id}`, { plan })).status, 200);

  test('after a move to a smaller plan the agents beyond it answer 402 agent_paused; the oldest stay active; moving back restores them', async () => {
    const ws = await service.seedWorkspace({ plan: 'agency' });
    const agents: string[] = [];
    for (let i = 1; i <= 6; i++) agents.push(await seedAgent(service, ws, `Agent ${i}`));
    // Each agent answers first, so its row is kept by the process: the move must still be seen at once.
    for (const agent of agents) assert.equal((await ask(ws, agent)).status, 200);
    await movePlan(ws, 'studio'); // 5 agents
    for (const agent of agents.slice(0, 5)) assert.equal((await ask(ws, agent)).status, 200);
    assertError(await ask(ws, agents[5]), 402, 'agent_paused');
    assertError(await ask(ws, agents[5], true), 402, 'agent_paused');
    const read = await service.api('GET', `/agents/${agents[5]}`, { key: ws.keys.read });
    assert.equal(read.body.data.status, 'paused');
    assert.equal((await service.api('GET', `/agents/${agents[5]}/conversations`, { key: ws.keys.read })).status, 200, 'a paused agent’s conversations stay readable');
    await movePlan(ws, 'agency');
    assert.equal((await ask(ws, agents[5])).status, 200);
  });

  test('an agent whose model is above the plan after a move answers 402 model_not_allowed, also without a provider configured', async () => {
    const ws = await service.seedWorkspace({ plan: 'agency' });
    const agent = await seedAgent(service, ws);
    const patched = await service.api('PATCH', `/agents/${agent}`, { key: ws.keys.manage, body: { model: 'gpt-4.1' } });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal((await ask(ws, agent)).status, 200, 'on agency the offline model stands in for gpt-4.1 (no provider)');
    await movePlan(ws, 'studio');
    assertError(await ask(ws, agent), 402, 'model_not_allowed');
    assertError(await ask(ws, agent, true), 402, 'model_not_allowed');
    const conversations = await service.api('GET', `/agents/${agent}/conversations`, { key: ws.keys.read });
    assert.equal(conversations.body.data.length, 1, 'the refused questions left nothing');
  });
});

describe('credits with two API processes on one PostgreSQL', { skip: storeUnderTest() !== 'postgres' && 'needs the PostgreSQL pass (TEST_DATABASE_URL and TEST_REDIS_URL)' }, () => {
  let deployment: Awaited<ReturnType<typeof apiProcessesOnPostgres>>;
  let api: Running[];

  before(async () => {
    deployment = await apiProcessesOnPostgres(ADMIN_TOKEN);
    api = [await startMain(deployment.env)];
    await waitFor(api[0], /Try: curl/, 10_000);
    api.push(await startMain(deployment.env));
  });
  after(async () => deployment?.close());

  const call = (running: Running, method: string, route: string, bearer: string, body?: unknown) => callAs(running.url, method, route, bearer, body);

  test('answers asked at once through both processes never take the workspace past its included and purchased credits', async () => {
    const workspace = await call(api[0], 'POST', '/admin/v1/workspaces', ADMIN_TOKEN, { name: 'Busy', plan: 'studio' });
    assert.equal(workspace.status, 201, JSON.stringify(workspace.body));
    const workspaceId = workspace.body.data.id;
    const keyOf = async (scope: string) => (await call(api[0], 'POST', `/admin/v1/workspaces/${workspaceId}/keys`, ADMIN_TOKEN, { name: scope, scope })).body.data.key as string;
    const [chat, manage] = [await keyOf('chat'), await keyOf('manage')];
    const agent = await call(api[1], 'POST', '/api/v1/agents', manage, { name: 'Busy agent', useCase: 'general' });
    assert.equal(agent.status, 201, JSON.stringify(agent.body));

    const LEFT_INCLUDED = 6;
    const PURCHASED = 4;
    const ASKED = 30;
    const month = (await call(api[0], 'GET', '/admin/v1/clock', ADMIN_TOKEN)).body.data.now.slice(0, 7);
    await deployment.database.database.executeSql('insert into credit_usage (workspace_id, month, used) values ($1, $2, $3)', [workspaceId, month, STUDIO_CREDITS - LEFT_INCLUDED]);
    assert.equal((await call(api[0], 'POST', `/admin/v1/workspaces/${workspaceId}/credit-packs`, ADMIN_TOKEN, { credits: PURCHASED })).status, 201);

    const replies = await Promise.all(
      Array.from({ length: ASKED }, (_, i) => call(api[i % 2], 'POST', `/api/v1/agents/${agent.body.data.id}/chat`, chat, { message: `Question ${i}: are you open today?` })),
    );
    const answered = replies.filter((r) => r.status === 200);
    const refused = replies.filter((r) => r.status === 402 && r.body.error.code === 'credits_exhausted');
    assert.equal(answered.length, LEFT_INCLUDED + PURCHASED, JSON.stringify(replies.filter((r) => r.status !== 200 && r.status !== 402)));
    assert.equal(refused.length, ASKED - answered.length);

    for (const running of api) {
      const credits = (await call(running, 'GET', '/api/v1/workspace', manage)).body.data.workspace.credits;
      assert.deepEqual(credits, { usedThisMonth: STUDIO_CREDITS + PURCHASED, included: STUDIO_CREDITS, purchased: 0, overage: false });
    }
  });
});
