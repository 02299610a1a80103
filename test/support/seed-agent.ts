import { sql } from 'kysely';
import { newId } from '../../src/platform/ids.ts';
import type { SeededWorkspace, Service } from './harness.ts';

/**
 * An agent in the workspace: through POST /agents when that route exists,
 * else a bare row (for suites that only need an agent to tie keys to).
 */
export async function seedAgent(service: Service, ws: SeededWorkspace, name = 'Test agent'): Promise<string> {
  const reply = await service.api('POST', '/agents', { key: ws.keys.manage, body: { name, useCase: 'general' } });
  if (reply.status === 200 || reply.status === 201) return reply.body.data.id as string;
  if (reply.status !== 404 || !/No route/.test(reply.body?.error?.message ?? '')) {
    throw new Error(`POST /agents failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  }
  const id = newId('ag');
  await sql`insert into agents (id, workspace_id, status, created_at) values (${id}, ${ws.id}, 'active', ${service.ctx.clock.now()})`.execute(service.ctx.db);
  return id;
}
