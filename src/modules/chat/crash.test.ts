/**
 * An API process killed (SIGKILL) while answers are being charged and recorded in groups (platform/grouped-statements.ts):
 * every answer it replied with is in the database, with its question and its credit; nothing acknowledged is lost.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_TOKEN } from '../../../test/support/harness.ts';
import { apiProcessesOnPostgres, callAs, startMain, type Running } from '../../../test/support/processes.ts';
import { storeUnderTest } from '../../../test/support/stores.ts';

const ASKED = 60;
const KILL_AFTER = 8;

describe('an API process killed while its answers are written in groups, on PostgreSQL', { skip: storeUnderTest() !== 'postgres' && 'needs the PostgreSQL pass (TEST_DATABASE_URL and TEST_REDIS_URL)' }, () => {
  let deployment: Awaited<ReturnType<typeof apiProcessesOnPostgres>>;
  let api: Running;

  before(async () => {
    deployment = await apiProcessesOnPostgres(ADMIN_TOKEN);
    api = await startMain(deployment.env);
  });
  after(async () => deployment?.close());

  const call = (method: string, route: string, bearer: string, body?: unknown) => callAs(api.url, method, route, bearer, body);

  test('after SIGKILL in the middle of concurrent answers, every answer replied is recorded with its question and charged', async () => {
    const workspace = await call('POST', '/admin/v1/workspaces', ADMIN_TOKEN, { name: 'Crashing', plan: 'studio' });
    const workspaceId = workspace.body.data.id;
    const keyOf = async (scope: string) => (await call('POST', `/admin/v1/workspaces/${workspaceId}/keys`, ADMIN_TOKEN, { name: scope, scope })).body.data.key as string;
    const [chat, manage] = [await keyOf('chat'), await keyOf('manage')];
    const agent = await call('POST', '/api/v1/agents', manage, { name: 'Crashing agent', useCase: 'general' });
    assert.equal(agent.status, 201, JSON.stringify(agent.body));

    const replied: Array<{ conversationId: string; messageId: string }> = [];
    let killed = false;
    await Promise.allSettled(
      Array.from({ length: ASKED }, (_, i) =>
        call('POST', `/api/v1/agents/${agent.body.data.id}/chat`, chat, { message: `Question ${i}: are you open today?` }).then((reply) => {
          if (reply.status !== 200 || killed) return;
          replied.push({ conversationId: reply.body.data.conversationId, messageId: reply.body.data.messageId });
          if (replied.length === KILL_AFTER) {
            killed = true;
            api.child.kill('SIGKILL');
          }
        }),
      ),
    );
    await api.exited;
    assert.ok(replied.length >= KILL_AFTER, `${replied.length} answers replied before the kill`);

    const db = deployment.database.database;
    const { rows: answers } = await db.executeSql(
      `select m.id, m.conversation_id, q.role as question_role from messages m join messages q on q.conversation_id = m.conversation_id and q.position = 0
       where m.id = any($1::text[]) and m.role = 'assistant'`,
      [replied.map((r) => r.messageId)],
    );
    assert.equal(answers.length, replied.length, 'every answer replied is recorded');
    assert.ok(answers.every((row) => row.question_role === 'user' && replied.some((r) => r.messageId === row.id && r.conversationId === row.conversation_id)));
    const { rows: [usage] } = await db.executeSql('select coalesce(sum(used), 0)::integer as used from credit_usage where workspace_id = $1', [workspaceId]);
    const { rows: [recorded] } = await db.executeSql(`select count(*)::integer as n from messages m join conversations c on c.id = m.conversation_id where c.workspace_id = $1 and m.role = 'assistant'`, [workspaceId]);
    assert.ok(usage.used >= recorded.n, `${usage.used} credits used for ${recorded.n} answers recorded`);
  });
});
