/** Webhooks (spec 2.13, 4.14): one zod schema per request and reply. */
import { z } from 'zod';
import { timestamp } from '../../http/schemas.ts';
import { DOMAIN_EVENT_TYPES } from '../../platform/domain-events.ts';

export const MAX_URL_CHARS = 2000;

export const webhookEventType = z.enum(DOMAIN_EVENT_TYPES);

export const createWebhookBody = z.strictObject({
  url: z.string().min(1).max(MAX_URL_CHARS).describe('https:// address on the public internet, no port, no user name or password, up to 2,000 characters'),
  events: z
    .array(webhookEventType)
    .min(1)
    .max(DOMAIN_EVENT_TYPES.length)
    .refine((events) => new Set(events).size === events.length, 'each event once')
    .describe('one or more of lead.created, ticket.created'),
  agentId: z.string().min(1).max(100).optional().describe('only when for one agent; a key tied to an agent always adds for its agent'),
});

export const webhookParams = z.strictObject({ id: z.string().max(100) });

const webhookFields = {
  id: z.string(),
  url: z.string().describe('cut after the host for a key with only read scope (a path can carry a token)'),
  events: z.array(webhookEventType),
  agentId: z.string().nullable().describe('null: every agent in the workspace'),
  active: z.boolean().describe('false once deliveries failed for almost a day'),
  disabledAt: timestamp.nullable(),
  createdAt: timestamp,
};

export const webhookSchema = z.object(webhookFields).meta({ id: 'Webhook' });

export const createdWebhookSchema = z
  .object({ ...webhookFields, secret: z.string().describe('the signing secret; present in this reply only') })
  .meta({ id: 'CreatedWebhook' });

export const deletedWebhookSchema = z.object({ id: z.string(), deleted: z.literal(true) });

export type CreateWebhookInput = z.infer<typeof createWebhookBody>;
export type WebhookView = z.infer<typeof webhookSchema>;
export type CreatedWebhookView = z.infer<typeof createdWebhookSchema>;
