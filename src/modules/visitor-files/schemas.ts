/** Visitor files (spec 2.8 attachment, 2.9 visitor file): one zod schema per request and reply. */
import { z } from 'zod';
import { attachmentSchema } from '../chat/schemas.ts';

export const visitorFileSchema = attachmentSchema
  .extend({
    conversationId: z.string().nullable().describe('null while the file waits for the question it was sent with'),
    stored: z.boolean().describe('false once the file is past its 30 days (the file itself is never handed out)'),
    text: z.string().nullable().describe('what the agent was given to read; null for a picture and once the file is past its 30 days'),
  })
  .meta({ id: 'VisitorFile' });

export type VisitorFileView = z.infer<typeof visitorFileSchema>;
export type AttachmentView = z.infer<typeof attachmentSchema>;

export const sentFileSchema = attachmentSchema
  .extend({
    visitorToken: z
      .string()
      .optional()
      .describe('for a file sent without a conversation and without x-visitor-token: the token to send in x-visitor-token with the question it goes with'),
  })
  .meta({ id: 'SentVisitorFile' });

export const visitorFileParams = z.strictObject({ id: z.string().max(100), fileId: z.string().max(100) });
export const visitorAgentParams = z.strictObject({ agentId: z.string().max(100) });
