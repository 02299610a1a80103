/**
 * The shapes the dashboard reads (spec api-v1 section 2, docs/people.md): the types of the API's
 * own zod schemas, re-exported as types only (esbuild drops them; the bundle holds no schema).
 */
import type { Preset } from '../modules/workspace/setup-guide.ts';

export type { Agent, Embed } from '../modules/agents/schemas.ts';
export type { Analytics } from '../modules/analytics/schemas.ts';
export type { ChatAnswer } from '../modules/chat/schemas.ts';
export type { ClientReply } from '../modules/clients/service.ts';
export type { CrawlPageView as CrawlPage, CrawlView as Crawl } from '../modules/knowledge/crawl/schemas.ts';
export type { SourceView as Source } from '../modules/knowledge/routes.ts';
export type { WebhookView as Webhook } from '../modules/webhooks/schemas.ts';
export type { ModelView as Model } from '../modules/workspace/schemas.ts';
export type {
  AgentNotifications,
  AuditEntryView as AuditEntry,
  CreatedKey,
  DeliveryView as Delivery,
  InvitationView as Invitation,
  ListedKey,
  Me,
  PasskeyView as Passkey,
  PersonView as Person,
  ReportView as Report,
  SessionView,
  WorkspaceSettings,
  WorkspaceSettingsReply,
} from '../modules/people/schemas.ts';
export type { Preset, SetupGuide } from '../modules/workspace/setup-guide.ts';

export type Role = 'owner' | 'admin' | 'member';
export type Language = 'en' | 'nl';
/** The languages the dashboard speaks, each with its catalogue (i18n/). */
export const LANGUAGES: Language[] = ['en', 'nl'];


/** The use cases a new agent is made for in the dashboard: the presets' (the setup guide's standard ones). */
export type UseCase = Preset['useCase'];

/** The id of the page's JSON element holding GET /app/api/me's data for a signed-in person (src/modules/dashboard/routes.ts). */
export const ME_ELEMENT_ID = 'parley-me';
export const USE_CASES: UseCase[] = ['general', 'support', 'sales', 'docs'];
