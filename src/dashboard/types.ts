/**
 * The shapes the dashboard reads (spec api-v1 section 2, docs/people.md): the API's own zod
 * schemas' types, imported as types only (esbuild drops them; the bundle holds no schema).
 */
import type { z } from 'zod';
import type { agentSchema, embedSchema } from '../modules/agents/schemas.ts';
import type { analyticsSchema } from '../modules/analytics/schemas.ts';
import type { chatReply } from '../modules/chat/schemas.ts';
import type { clientReply } from '../modules/clients/schemas.ts';
import type { crawlPageSchema, crawlSchema } from '../modules/knowledge/crawl/schemas.ts';
import type { sourceSchema } from '../modules/knowledge/routes.ts';
import type { webhookSchema } from '../modules/webhooks/schemas.ts';
import type { modelSchema } from '../modules/workspace/schemas.ts';
import type { presetSchema, setupGuideReply } from '../modules/workspace/setup-guide.ts';

export type Role = 'owner' | 'admin' | 'member';
export type Language = 'en' | 'nl';

/** GET /app/api/me: the route has no reply schema (people's describeMe), so its shape is written here. */
export interface Me {
  person: { id: string; email: string; name: string; language: string; hasPassword: boolean };
  workspace: { id: string; name: string; plan: string };
  workspaces: { id: string; name: string; role: Role }[];
  role: Role;
  agentIds: string[] | null;
  csrfToken: string;
}

export type Agent = z.infer<typeof agentSchema>;
export type Source = z.infer<typeof sourceSchema>;
export type Preset = z.infer<typeof presetSchema>;
export type SetupGuide = z.infer<typeof setupGuideReply>['data'];
export type Crawl = z.infer<typeof crawlSchema>;
export type CrawlPage = z.infer<typeof crawlPageSchema>;
export type Embed = z.infer<typeof embedSchema>;
export type Model = z.infer<typeof modelSchema>;
export type Webhook = z.infer<typeof webhookSchema>;
export type Analytics = z.infer<typeof analyticsSchema>;
export type ClientReply = z.infer<typeof clientReply>;
export type ChatAnswer = z.infer<typeof chatReply>;

/** The use cases a new agent is made for in the dashboard: the presets' (the setup guide's standard ones). */
export type UseCase = Preset['useCase'];
export const USE_CASES: UseCase[] = ['general', 'support', 'sales', 'docs'];
