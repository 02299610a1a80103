/** Chat and conversations (spec 2.8, 4.7, 4.8): one zod schema per request and reply. */
import { z } from 'zod';
import { timestamp } from '../../http/schemas.ts';
import { pageQuery } from '../../domain/paging.ts';
import { CHANNELS } from './store.ts';

export const MAX_MESSAGE_CHARS = 4000;

const userId = z
  .string()
  .max(64)
  .refine((value) => !value.includes('@'), 'must not be an e-mail address')
  .refine((value) => /^[A-Za-z0-9-]+$/.test(value), 'letters, digits and dashes only')
  .describe("the caller's own stable id for the asker; letters, digits and dashes, up to 64; never an e-mail address");

export const chatBody = z.strictObject({
  message: z
    .string()
    .min(1)
    .max(MAX_MESSAGE_CHARS)
    .refine((value) => value.trim().length > 0, 'must not be blank')
    .describe('the question, 1 to 4,000 characters'),
  conversationId: z.string().min(1).max(100).optional().describe('continue an earlier conversation; omit to start one'),
  userId: userId.optional(),
  language: z.string().max(35).optional().describe('en, nl, fr, de or es: the language of the answer; any other value: the language of the question'),
  stream: z.boolean().optional().describe('true for a server-sent event stream (the AI SDK UI message stream protocol)'),
  test: z.boolean().optional().describe('true files the question in a test conversation (channel playground)'),
  page: z.strictObject({ url: z.string().max(2000) }).optional().describe('the page the person is looking at'),
});

const messageSource = z.object({
  id: z.string(),
  name: z.string(),
  similarity: z.number(),
  url: z.string().nullable().describe('the web address of a website source, the file address of a file source; null for text and Q&A'),
});
const grounding = z.enum(['supported', 'partial', 'unsupported']).nullable();

export const chatReply = z
  .object({
    conversationId: z.string(),
    messageId: z.string().describe("the answer's id"),
    answer: z.string(),
    confidence: z.number().int().min(0).max(100),
    grounding: grounding.describe('supported, partial or unsupported; null when no check was made'),
    sources: z.array(messageSource),
    model: z.string(),
    credits: z.number().int().describe('credits this answer cost'),
  })
  .meta({ id: 'ChatAnswer' });
export type ChatAnswer = z.infer<typeof chatReply>;

const day = z.iso.date().describe('YYYY-MM-DD, a UTC day');
const channel = z.enum(CHANNELS);

export const MAX_SEARCH_CHARS = 200;

/** The inbox's filters beside the spec's channel, from and to (docs/chat.md, "Filters and search"). */
const listFilters = {
  confidence: z
    .enum(['high', 'medium', 'low'])
    .optional()
    .describe("conversations with at least one answer in this confidence band (analytics' bands: high 80-100, medium 50-79, low 0-49)"),
  feedback: z
    .enum(['up', 'down', 'none'])
    .optional()
    .describe('up: an answer was rated helpful (1); down: an answer was rated not helpful (-1); none: no answer was rated'),
  q: z
    .string()
    .trim()
    .min(1)
    .max(MAX_SEARCH_CHARS)
    .refine((value) => /[\p{L}\p{N}]/u.test(value), 'must hold a word')
    .optional()
    .describe("words that must all be in the conversation's questions or answers, in any order, each also as the start of a longer word; case and accents do not matter"),
};

export const conversationListQuery = z.strictObject({
  channel: channel.optional(),
  from: day.optional(),
  to: day.optional(),
  ...listFilters,
  ...pageQuery,
});

export const exportQuery = z.strictObject({ channel: channel.optional(), from: day.optional(), to: day.optional(), ...listFilters });

const conversationFields = {
  id: z.string(),
  channel,
  userId: z.string().nullable(),
  startedAt: timestamp,
  lastMessageAt: timestamp,
  messageCount: z.number().int(),
  firstMessage: z.string(),
  lastConfidence: z.number().int().nullable(),
  openedBy: z.enum(['launcher', 'greeting', 'nudge']).nullable(),
  from: z.string().nullable().describe('sender address of an e-mail conversation'),
};

export const conversationSchema = z.object(conversationFields).meta({ id: 'Conversation' });
export type ConversationView = z.infer<typeof conversationSchema>;

export const attachmentSchema = z
  .object({
    id: z.string(),
    fileName: z.string(),
    kind: z.string(),
    mediaType: z.string(),
    sizeBytes: z.number().int(),
    pages: z.number().int().nullable(),
    truncated: z.boolean(),
    ocrPages: z.number().int().nullable(),
  })
  .meta({ id: 'Attachment' });

export const messageSchema = z
  .object({
    id: z.string(),
    role: z.enum(['user', 'assistant']).describe('user: a question; assistant: an answer'),
    content: z.string(),
    createdAt: timestamp,
    attachments: z.array(attachmentSchema).describe('files sent with a question'),
    page: z.object({ url: z.string(), title: z.string().nullable() }).nullable().describe('the page a question was asked on'),
    confidence: z.number().int().nullable(),
    grounding,
    sources: z.array(messageSource),
    feedback: z.union([z.literal(1), z.literal(-1)]).nullable(),
    model: z.string().nullable(),
    held: z.boolean(),
  })
  .meta({ id: 'Message' });
export type MessageView = z.infer<typeof messageSchema>;

export const conversationWithMessagesSchema = z.object({ ...conversationFields, messages: z.array(messageSchema) }).meta({ id: 'ConversationWithMessages' });
export type ConversationWithMessagesView = z.infer<typeof conversationWithMessagesSchema>;

export const exportReply = z.object({ url: z.string(), expiresAt: timestamp });

export const correctionBody = z.strictObject({
  question: z.string().trim().min(1).max(1000),
  answer: z.string().trim().min(1).max(20_000).describe('what the answer should have said'),
});

export const agentConversationParams = z.strictObject({ id: z.string(), conversationId: z.string() });
export const agentMessageParams = z.strictObject({ id: z.string(), messageId: z.string() });
