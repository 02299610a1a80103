/**
 * Creating an agent with a website to crawl (spec 4.5): the orchestrating verb
 * above both areas (docs/architecture.md). The agents area makes the agent; this
 * area starts its first crawl. The REST route, the MCP tool and the dashboard
 * call this verb, so the agents area never imports the knowledge area.
 */
import type { Context } from '../../../context.ts';
import { ApiError } from '../../../domain/errors.ts';
import type { Principal } from '../../../domain/principal.ts';
import { createAgent, type CreatedAgent } from '../../agents/service.ts';
import type { CreateAgentInput } from '../../agents/schemas.ts';
import { startCrawl } from './service.ts';

export async function createAgentWithWebsite(ctx: Context, auth: Principal, input: CreateAgentInput): Promise<CreatedAgent> {
  const { website, ...rest } = input;
  const agent = await createAgent(ctx, auth, rest);
  if (website === undefined) return agent;
  // The agent exists whatever happens to the crawl (spec 4.5): a refused crawl is told in crawlError.
  try {
    const crawl = await startCrawl(ctx, { id: agent.id, workspaceId: auth.workspaceId, status: agent.status }, { url: website });
    return { ...agent, crawl: { id: crawl.id, status: crawl.status } };
  } catch (error) {
    if (error instanceof ApiError) return { ...agent, crawlError: { code: error.code, message: error.message } };
    throw error;
  }
}
