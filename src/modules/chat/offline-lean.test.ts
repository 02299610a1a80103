/**
 * The offline model answers without the AI SDK (docs/performance.md, Capacity and
 * Memory): a process whose agents answer with it never loads 'ai' nor the provider
 * package, also after answering. A real process of src/main.ts with the load hook of
 * test/support/loaded-modules.ts (as test/lean-start.test.ts), asked through the API.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { callApi, MANAGE_KEY, printed, startMain, stopAll, until, waitFor, type Running, type ServiceApi } from '../../../test/support/processes.ts';
import { freshDatabase, storeUnderTest } from '../../../test/support/stores.ts';

const SDK = ['ai', '@ai-sdk/openai-compatible', '@ai-sdk/provider-utils'];

const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  await stopAll();
  for (const cleanup of cleanups) await cleanup();
});

/** The API process (with the load hook) and, on PostgreSQL, a worker that reads the source. */
async function start(file: string): Promise<{ api: ServiceApi; server: Running }> {
  const hook = ['--import', './test/support/loaded-modules.ts'];
  const env = { PARLEY_DATA_DIR: await mkdtemp(path.join(os.tmpdir(), 'parley-offline-lean-')), PARLEY_LOADED_MODULES_FILE: file };
  if (storeUnderTest() === 'embedded') {
    const server = await startMain(env, hook);
    await waitFor(server, /Try: curl/, 10_000);
    return { api: { url: server.url, key: printed(server.output(), MANAGE_KEY)! }, server };
  }
  const { url, drop } = await freshDatabase();
  cleanups.push(drop);
  const shared = { ...env, DATABASE_URL: url!, REDIS_URL: process.env.TEST_REDIS_URL! };
  const server = await startMain({ ...shared, PARLEY_ROLE: 'api' }, hook);
  await waitFor(server, /Try: curl/, 10_000);
  await startMain({ ...shared, PARLEY_ROLE: 'worker' });
  return { api: { url: server.url, key: printed(server.output(), MANAGE_KEY)! }, server };
}

async function loadedPackages(server: Running, file: string): Promise<string[]> {
  server.child.kill('SIGUSR2');
  const text = await until('the process lists its modules', () => readFile(file, 'utf8').catch(() => ''), (read) => read.endsWith('\n'), 10_000);
  return text.trim().split('\n');
}

test('a process whose agent answers with the offline model has not loaded the AI SDK after answering', async () => {
  const file = path.join(await mkdtemp(path.join(os.tmpdir(), 'parley-loaded-')), 'modules.txt');
  const { api, server } = await start(file);
  const agent = await callApi(api, 'POST', '/agents', { name: 'Lean', useCase: 'general' });
  const source = await callApi(api, 'POST', `/agents/${agent.id}/sources`, {
    type: 'text',
    title: 'Opening hours',
    content: 'The shop opens at 9:00 on weekdays. On Saturdays it opens at 10:00.',
  });
  await until('the source is read', () => callApi(api, 'GET', `/agents/${agent.id}/sources/${source.id}`), (s) => s.status === 'ready');

  const first = await callApi(api, 'POST', `/agents/${agent.id}/chat`, { message: 'When does the shop open on Saturdays?' });
  assert.match(first.answer, /Saturdays it opens at 10:00/);
  assert.equal(first.model, 'parley-offline');
  const followUp = await callApi(api, 'POST', `/agents/${agent.id}/chat`, { message: 'What about parking for bicycles?', conversationId: first.conversationId });
  assert.equal(followUp.conversationId, first.conversationId);

  const loaded = await loadedPackages(server, file);
  assert.ok(loaded.includes('zod'), "the list is the process's own");
  assert.deepEqual(SDK.filter((name) => loaded.includes(name)), []);
});
