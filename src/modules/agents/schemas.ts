/**
 * The agent resource (spec 2.5, 4.5): the reply schema with every member of
 * the nested objects, and the strict request schemas. Documented member by
 * member in docs/agents.md; keep the two in step.
 */
import { z } from 'zod';
import { timestamp } from '../../http/schemas.ts';
import { USE_CASES } from '../workspace/setup-guide.ts';

export const LANGUAGES = ['en', 'nl', 'fr', 'de', 'es'] as const;
export type Language = (typeof LANGUAGES)[number];
export const languageSchema = z.enum(LANGUAGES);

/** A stored language as one of the five, English for anything else. */
export function languageOrEnglish(value: string | null | undefined): Language {
  return LANGUAGES.find((l) => l === value) ?? 'en';
}
export const useCaseSchema = z.enum(USE_CASES);

export const LEAD_FIELDS = ['name', 'email', 'phone', 'company'] as const;
export const MAX_ACTIONS = 10;
export const MAX_ALLOWED_ORIGINS = 50;
export const MAX_PROACTIVE_PATHS = 50;

const hexColor = z.string().regex(/^#[0-9a-fA-F]{6}$/, 'a colour such as #2563eb');
const shortText = (max: number) => z.string().max(max);
/** Addresses are checked for their scheme by the service, which knows the rule's wording. */
const address = z.string().min(1).max(2000);

// ---------------------------------------------------------------- reply

const translationSchema = z.object({
  welcomeMessage: z.string().optional(),
  messagePlaceholder: z.string().optional(),
  launcherLabel: z.string().optional(),
});

export const brandingSchema = z.object({
  color: hexColor.describe('main colour of the launcher and chat header'),
  textColor: hexColor.describe('colour of text drawn on color'),
  position: z.enum(['right', 'left']).describe('bottom corner of the page the launcher sits in'),
  title: z.string().describe("chat header title; empty means the agent's name"),
  messagePlaceholder: z.string().describe('placeholder of the message box; empty means the standard text'),
  launcherLabel: z.string().describe('text beside the launcher icon; empty means the icon alone'),
  logoUrl: z.string().nullable().describe('chat header image, set with PUT /agents/{id}/branding/logo'),
  iconUrl: z.string().nullable().describe('launcher image, set with PUT /agents/{id}/branding/icon'),
  removeBranding: z.boolean().describe('hide the "Powered by Parley" line (plans with branding removal)'),
  translations: z.partialRecord(languageSchema, translationSchema).describe('per widget language: welcomeMessage, messagePlaceholder, launcherLabel'),
});

const greetingSchema = z.object({ enabled: z.boolean(), text: z.string(), delaySeconds: z.number().int() });
const nudgeSchema = z.object({ enabled: z.boolean(), text: z.string(), afterSeconds: z.number().int() });

export const proactiveSchema = z.object({
  greeting: greetingSchema.describe('a message bubble shown beside the closed launcher'),
  nudge: nudgeSchema.describe('the launcher opens a chat by itself after a while on the page'),
  pages: z.enum(['all', 'only', 'except']).describe('where greeting and nudge run: every page, only the paths, or all but the paths'),
  paths: z.array(z.string()).describe('page paths such as /pricing; a trailing * matches every path below'),
  mobile: z.boolean().describe('also run greeting and nudge on small screens'),
});

const leadFieldSchema = z.object({ name: z.enum(LEAD_FIELDS), required: z.boolean() });

export const leadCaptureSchema = z.object({
  enabled: z.boolean(),
  fields: z.array(leadFieldSchema).describe('asked in this order; names unique'),
  timing: z.enum(['before_chat', 'during_chat']).describe('ask before the first question, or during the chat'),
  skippable: z.boolean().describe('the visitor may go on without leaving details'),
  afterQuestions: z.number().int().describe('during_chat: ask after this many questions'),
  afterWeakAnswer: z.boolean().describe('during_chat: also ask when the agent could not answer well'),
  button: z.string().describe('submit button text; empty means the standard text'),
  intro: z.string().describe('text above the form; empty means the standard sentence'),
  thanks: z.string().describe('text after sending; empty means the standard sentence'),
  privacyUrl: z.string().nullable().describe('https address of the privacy notice; required to switch on'),
  marketing: z.object({ enabled: z.boolean(), label: z.string() }).describe('an unticked marketing consent box and its label'),
});

export const ticketsSchema = z.object({
  enabled: z.boolean(),
  answerTime: z.string().describe('when the team answers; empty string means the standard sentence'),
  privacyUrl: z.string().nullable(),
});

export const emailChannelSchema = z.object({
  enabled: z.boolean(),
  address: z.string().nullable().describe('the mailbox whose mail the agent answers'),
  review: z.boolean().describe('answers wait for a person to approve them before they are sent'),
  imap: z
    .object({
      host: z.string(),
      port: z.number().int(),
      secure: z.boolean().describe('TLS from the start (port 993); false: STARTTLS when the server offers it'),
      user: z.string(),
      folder: z.string().describe('the folder read for new mail'),
      moveTo: z.string().nullable().describe('where a handled mail is moved; null: it stays, marked as read'),
      passwordSet: z.boolean().describe('the password is write-only; this says one is stored'),
    })
    .optional()
    .describe('the agent fetches its mail from this mailbox (docs/email.md); absent when mail reaches the service by SMTP'),
});

/** The most an owner may set as an agent's daily credits: beyond every plan's month. */
export const MAX_DAILY_CREDITS = 1_000_000;

export const limitsSchema = z.object({
  dailyCredits: z
    .number()
    .int()
    .nullable()
    .describe('the most credits the agent spends on answers in a UTC day, whoever asks; null: no cap beyond the workspace’s credits'),
});

export const actionSchema = z
  .object({
    id: z.string(),
    kind: z.enum(['link', 'email', 'phone']),
    enabled: z.boolean(),
    name: z.string(),
    whenToUse: z.string(),
    label: z.string(),
    url: z.string(),
  })
  .meta({ id: 'AgentAction' });

export const agentSchema = z
  .object({
    id: z.string().describe('ag_ prefix'),
    name: z.string(),
    description: z.string(),
    useCase: useCaseSchema.nullable(),
    instructions: z.string(),
    welcomeMessage: z.string(),
    language: languageSchema,
    languages: z.array(languageSchema).describe('language first'),
    model: z.string(),
    temperature: z.number(),
    retrieval: z.object({ topK: z.number().int(), minSimilarity: z.number() }),
    allowedOrigins: z.array(z.string()).describe('empty: every site may embed the agent'),
    calendlyUrl: z.string().nullable(),
    attachmentsEnabled: z.boolean(),
    branding: brandingSchema,
    proactive: proactiveSchema,
    leadCapture: leadCaptureSchema,
    tickets: ticketsSchema,
    emailChannel: emailChannelSchema,
    actions: z.array(actionSchema),
    limits: limitsSchema,
    proofOfWork: z.boolean().describe('the widget solves a proof-of-work challenge before each question (docs/security.md)'),
    status: z.enum(['active', 'paused']),
    lastTrainedAt: timestamp.nullable(),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'Agent' });

export type Agent = z.infer<typeof agentSchema>;

export const crawlErrorSchema = z.object({ code: z.string(), message: z.string() });

export const createdAgentSchema = agentSchema.extend({
  crawl: z.object({ id: z.string(), status: z.string() }).optional().describe('present when website was sent and the crawl started'),
  crawlError: crawlErrorSchema.optional().describe('present when website was sent and the crawl could not start'),
});

export const embedSchema = z.object({
  script: z.string(),
  iframe: z.string(),
  allowedOrigins: z.array(z.string()),
});
export type Embed = z.infer<typeof embedSchema>;

// ---------------------------------------------------------------- requests

export const createAgentBody = z.strictObject({
  name: z.string().trim().min(1).max(80),
  useCase: useCaseSchema,
  description: shortText(300).optional(),
  instructions: shortText(20_000).optional(),
  welcomeMessage: shortText(300).optional(),
  language: languageSchema.optional(),
  website: address.optional(),
});
export type CreateAgentInput = z.infer<typeof createAgentBody>;

const translationPatch = z.strictObject({
  welcomeMessage: shortText(300).optional(),
  messagePlaceholder: shortText(100).optional(),
  launcherLabel: shortText(40).optional(),
});

const brandingPatch = z.strictObject({
  color: hexColor.optional(),
  textColor: hexColor.optional(),
  position: z.enum(['right', 'left']).optional(),
  title: shortText(60).optional(),
  messagePlaceholder: shortText(100).optional(),
  launcherLabel: shortText(40).optional(),
  removeBranding: z.boolean().optional(),
  // null removes every text of that language
  translations: z.partialRecord(languageSchema, translationPatch.nullable()).optional(),
});

const proactivePatch = z.strictObject({
  greeting: z
    .strictObject({ enabled: z.boolean().optional(), text: shortText(300).optional(), delaySeconds: z.number().int().min(0).max(600).optional() })
    .optional(),
  nudge: z
    .strictObject({ enabled: z.boolean().optional(), text: shortText(300).optional(), afterSeconds: z.number().int().min(0).max(3600).optional() })
    .optional(),
  pages: z.enum(['all', 'only', 'except']).optional(),
  paths: z
    .array(z.string().max(500).regex(/^\/[^\s*]*\*?$/, 'a path starting with /, optionally ending in *'))
    .max(MAX_PROACTIVE_PATHS)
    .optional(),
  mobile: z.boolean().optional(),
});

const leadCapturePatch = z.strictObject({
  enabled: z.boolean().optional(),
  fields: z.array(z.strictObject({ name: z.enum(LEAD_FIELDS), required: z.boolean().optional() })).min(1).max(LEAD_FIELDS.length).optional(),
  timing: z.enum(['before_chat', 'during_chat']).optional(),
  skippable: z.boolean().optional(),
  afterQuestions: z.number().int().min(1).max(20).optional(),
  afterWeakAnswer: z.boolean().optional(),
  button: shortText(40).optional(),
  intro: shortText(300).optional(),
  thanks: shortText(300).optional(),
  privacyUrl: address.nullable().optional(),
  marketing: z.strictObject({ enabled: z.boolean().optional(), label: shortText(300).optional() }).optional(),
});

const ticketsPatch = z.strictObject({
  enabled: z.boolean().optional(),
  answerTime: shortText(200).optional(),
  privacyUrl: address.nullable().optional(),
});

const emailChannelPatch = z.strictObject({
  enabled: z.boolean().optional(),
  address: z.email().max(254).nullable().optional(),
  review: z.boolean().optional(),
  imap: z
    .strictObject({
      host: z.string().trim().min(1).max(253).regex(/^[A-Za-z0-9.:[\]-]+$/, 'a host name or address').optional(),
      port: z.number().int().min(1).max(65535).optional(),
      secure: z.boolean().optional(),
      user: z.string().min(1).max(320).optional(),
      password: z.string().min(1).max(1000).optional(),
      folder: z.string().trim().min(1).max(200).optional(),
      moveTo: z.string().trim().min(1).max(200).nullable().optional(),
    })
    .nullable()
    .optional(),
});

const actionPatch = z.strictObject({
  id: z.string().optional(),
  kind: z.enum(['link', 'email', 'phone']).optional(),
  enabled: z.boolean().optional(),
  name: z.string().trim().min(1).max(80).optional(),
  whenToUse: shortText(500).optional(),
  label: z.string().trim().min(1).max(40).optional(),
  url: address.optional(),
});
export type ActionPatch = z.infer<typeof actionPatch>;

export const patchAgentBody = z.strictObject({
  name: z.string().trim().min(1).max(80).optional(),
  description: shortText(300).optional(),
  instructions: shortText(20_000).optional(),
  welcomeMessage: shortText(300).optional(),
  language: languageSchema.optional(),
  languages: z.array(languageSchema).max(LANGUAGES.length).optional(),
  model: z.string().min(1).max(100).optional(),
  temperature: z.number().min(0).max(1).optional(),
  retrieval: z.strictObject({ topK: z.number().int().min(1).max(10).optional(), minSimilarity: z.number().min(0).max(1).optional() }).optional(),
  allowedOrigins: z.array(z.string().max(300)).max(MAX_ALLOWED_ORIGINS).optional(),
  calendlyUrl: address.nullable().optional(),
  attachmentsEnabled: z.boolean().optional(),
  branding: brandingPatch.optional(),
  proactive: proactivePatch.optional(),
  leadCapture: leadCapturePatch.optional(),
  tickets: ticketsPatch.optional(),
  emailChannel: emailChannelPatch.optional(),
  actions: z.array(actionPatch).max(MAX_ACTIONS).optional(),
  limits: z.strictObject({ dailyCredits: z.number().int().min(0).max(MAX_DAILY_CREDITS).nullable().optional() }).optional(),
  proofOfWork: z.boolean().optional(),
});
export type PatchAgentInput = z.infer<typeof patchAgentBody>;

export const agentParams = z.strictObject({ id: z.string().max(100) });
export const imageParams = z.strictObject({ id: z.string().max(100), image: z.enum(['logo', 'icon']) });
export const imageBody = z.strictObject({ url: address });
