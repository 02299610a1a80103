/**
 * Adding a source never holds a lock other requests need while a file's bytes are
 * written. The write of the bytes is held (a test session locks the table they go
 * to), and while it is held a chat with the same agent must answer: nothing waits on
 * the agent's row. PostgreSQL only: the embedded store has one connection, on which
 * every statement waits its turn anyway.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { startService, type Service, type SeededWorkspace } from '../../../test/support/harness.ts';
import { bounded } from '../../../test/support/processes.ts';
import { seedAgent } from '../../../test/support/seed-agent.ts';
import { storeUnderTest } from '../../../test/support/stores.ts';
import { serve, startServer, waitForSource } from './test-support.ts';

const MB = 1024 * 1024;
/** Far longer than a chat takes; with the agent's row locked the chat would wait for as long as the test holds the bytes. */
const ANSWERS_WITHIN_MS = 15_000;

describe('adding a file source while its bytes are being written', { skip: storeUnderTest() !== 'postgres' && 'needs the PostgreSQL pass (the embedded store has one connection)' }, () => {
  let service: Service;
  let files: Awaited<ReturnType<typeof startServer>>;
  let ws: SeededWorkspace;
  let agent: string;
  let holder: pg.Client;

  before(async () => {
    service = await startService({ env: { PARLEY_ALLOW_PRIVATE_URLS: '1', PARLEY_RATE_LIMIT_PER_MINUTE: '100000' } });
    files = await startServer({ '/handbook.txt': serve(Buffer.alloc(3 * MB, 'The shop opens at nine on Saturday. '), 'text/plain') });
    ws = await service.seedWorkspace({ plan: 'studio' });
    agent = await seedAgent(service, ws, 'Locks');
    holder = new pg.Client({ connectionString: service.ctx.config.databaseUrl });
    await holder.connect();
  });
  after(async () => {
    await holder?.end().catch(() => {});
    await files?.close();
    await service?.close();
  });

  test('a chat with the same agent answers while a 3 MB file source is being stored', async () => {
    // Holds every write of file bytes until the test commits.
    await holder.query('begin');
    await holder.query('lock table source_files in share mode');
    const adding = service.api('POST', `/agents/${agent}/sources`, { key: ws.keys.manage, body: { type: 'file', url: `${files.url}/handbook.txt` } });
    try {
      await Promise.race([waitForBytesWriteHeld(holder), adding.then((reply) => Promise.reject(new Error(`the source was added without waiting: ${reply.status} ${JSON.stringify(reply.body)}`)))]);
      const chat = await bounded(
        service.api('POST', `/agents/${agent}/chat`, { key: ws.keys.chat, body: { message: 'When do you open on Saturday?' } }),
        ANSWERS_WITHIN_MS,
        'a chat while the file bytes are held',
      );
      assert.equal(chat.status, 200, JSON.stringify(chat.body));
    } finally {
      await holder.query('commit');
    }
    const added = await adding;
    assert.equal(added.status, 201, JSON.stringify(added.body));
    const read = await waitForSource(service, ws.keys.manage, agent, added.body.data.id, 60_000);
    assert.equal(read.status, 'ready', JSON.stringify(read));
    assert.equal(read.sizeBytes, 3 * MB);
  });
});

/** Until the service's insert of the file's bytes waits on the test's table lock. */
async function waitForBytesWriteHeld(client: pg.Client): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    // The holder is inside a transaction, which sees one snapshot of the activity until told otherwise.
    await client.query('select pg_stat_clear_snapshot()');
    const { rows } = await client.query(
      `select 1 from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()
         and wait_event_type = 'Lock' and query ilike 'insert into "source_files"%'`,
    );
    if (rows.length > 0) return;
    if (Date.now() > deadline) throw new Error('the file bytes were never written');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
