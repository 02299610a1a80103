/** The visitor API's own routes (operator contract, "Visitor API"): one zod schema per request and reply. */
import { z } from 'zod';
import { timestamp } from '../../http/schemas.ts';
import { chatBody, chatReply } from '../chat/schemas.ts';
import { MAX_ATTACHMENTS } from '../visitor-files/read.ts';
import { actionSchema, brandingSchema, languageSchema, leadCaptureSchema, proactiveSchema, ticketsSchema } from '../agents/schemas.ts';

export const visitorAgentParams = z.strictObject({ agentId: z.string().max(100) });

const openedBy = z.enum(['launcher', 'greeting', 'nudge']);
const page = z.strictObject({ url: z.string().max(2000) });

export const publicAgentSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    language: languageSchema,
    languages: z.array(languageSchema),
    welcomeMessage: z.string(),
    branding: brandingSchema,
    proactive: proactiveSchema,
    leadCapture: leadCaptureSchema,
    tickets: ticketsSchema,
    attachmentsEnabled: z.boolean().describe('visitors may send files (also needs a plan with visitor files)'),
    actions: z.array(actionSchema),
    calendlyUrl: z.string().nullable(),
    proofOfWork: z.boolean().describe('each question carries a solved challenge (GET …/challenge) in x-visitor-proof'),
  })
  .meta({ id: 'VisitorAgent' });

export const challengeSchema = z
  .object({
    parameters: z.object({
      algorithm: z.string(),
      nonce: z.string(),
      salt: z.string(),
      cost: z.number(),
      keyLength: z.number(),
      keyPrefix: z.string(),
      keySignature: z.string().optional(),
      expiresAt: z.number().optional().describe('seconds since 1970'),
      data: z.object({ agent: z.string() }).optional(),
    }),
    signature: z.string().optional(),
  })
  .describe("an ALTCHA challenge (altcha-lib's format): solve it and send { challenge, solution } as base64 JSON in x-visitor-proof");

export const visitorChatBody = z.strictObject({
  message: chatBody.shape.message,
  conversationId: chatBody.shape.conversationId.describe('continue an earlier conversation (send its token in x-visitor-token); omit to start one'),
  stream: chatBody.shape.stream,
  page: page.optional().describe('the page the visitor is on'),
  language: chatBody.shape.language,
  channel: z.enum(['widget', 'iframe']).optional().describe('widget (default) or iframe'),
  openedBy: openedBy.optional().describe('what opened the chat: the launcher, the greeting or the nudge (kept on a new conversation)'),
  attachments: z
    .array(z.string().min(1).max(100))
    .max(MAX_ATTACHMENTS)
    .optional()
    .describe(`ids of files sent with POST /files (up to ${MAX_ATTACHMENTS}): in this conversation, or before it with the token sent in x-visitor-token`),
});

export const visitorChatReply = chatReply
  .extend({ visitorToken: z.string().optional().describe('on a new conversation: the token every later call naming it sends in x-visitor-token') })
  .meta({ id: 'VisitorChatAnswer' });

export const feedbackBody = z.strictObject({
  messageId: z.string().min(1).max(100).describe("the answer's id"),
  value: z.union([z.literal(1), z.literal(-1), z.null()]).describe('1 helpful, -1 not helpful, null clears it'),
});

export const feedbackReply = z.object({ messageId: z.string(), feedback: z.union([z.literal(1), z.literal(-1)]).nullable() });

export const eventBody = z.strictObject({
  type: z.enum(['opened', 'lead_form_declined']),
  openedBy: openedBy.optional().describe('opened: what opened the chat'),
  page: page.optional().describe('the page the visitor is on'),
});

export const eventReply = z.object({ accepted: z.literal(true) });

export const identitySecretSchema = z
  .object({
    secret: z.string().describe('the key of HMAC-SHA256(email) for signed-in visitors; keep it on the site’s server'),
    createdAt: timestamp,
  })
  .meta({ id: 'IdentitySecret' });
