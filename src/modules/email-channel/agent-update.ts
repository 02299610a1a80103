/**
 * Changing an agent (spec 4.5, PATCH /agents/{id}): the orchestrating verb above the
 * agents area and the e-mail channel (docs/architecture.md), as
 * knowledge/crawl/agent-creation.ts is for the first crawl. The agents area checks and
 * stores the settings; this area seals the IMAP password and keeps the mailbox's row.
 * The REST route (and its /app/api/v1 copy) and the MCP tool call this verb, so the
 * agents area never imports the e-mail channel.
 */
import type { Context } from '../../context.ts';
import type { Principal } from '../../domain/principal.ts';
import type { Agent, PatchAgentInput } from '../agents/schemas.ts';
import { updateAgent } from '../agents/service.ts';
import { saveMailbox } from './mailbox.ts';

export async function updateAgentWithMailbox(ctx: Context, auth: Principal, agentId: string, patch: PatchAgentInput): Promise<Agent> {
  return updateAgent(ctx, auth, agentId, patch, (id, before, after, password) => saveMailbox(ctx, id, before, after, password));
}
