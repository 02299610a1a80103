import type { ApiPlugin } from '../app.ts';
import { crawlRoutes } from './knowledge/crawl/routes.ts';
import { agentRoutes } from './agents/routes.ts';
import { knowledgeRoutes } from './knowledge/routes.ts';
import { chatRoutes } from './chat/routes.ts';
import { exportRoutes } from './chat/export-routes.ts';
import { leadRoutes } from './leads/routes.ts';
import { identityRoutes } from './visitors/routes.ts';
import { visitorFileRoutes } from './visitor-files/routes.ts';
import { ticketRoutes } from './tickets/routes.ts';
import { webhookRoutes } from './webhooks/routes.ts';
import { analyticsRoutes } from './analytics/routes.ts';
import { clientRoutes } from './clients/routes.ts';

/**
 * The public API's areas, each a plugin registered under /api/v1.
 * An area adds itself here with one line.
 */
export const apiModules: ApiPlugin[] = [
  crawlRoutes,
  agentRoutes,
  knowledgeRoutes,
  chatRoutes,
  exportRoutes,
  leadRoutes,
  identityRoutes,
  visitorFileRoutes,
  ticketRoutes,
  webhookRoutes,
  analyticsRoutes,
  clientRoutes,
];
