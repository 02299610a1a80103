/**
 * The shapes the inbox pages read (spec api-v1 2.8-2.11): the API's zod schemas' types,
 * imported as types only (esbuild drops them; the bundle holds no schema).
 */
import type { z } from 'zod';
import type { attachmentSchema, conversationSchema, conversationWithMessagesSchema, messageSchema } from '../../../modules/chat/schemas.ts';
import type { leadSchema } from '../../../modules/leads/schemas.ts';
import type { entrySchema, ticketSchema, ticketWithEntriesSchema } from '../../../modules/tickets/schemas.ts';
import type { visitorFileSchema } from '../../../modules/visitor-files/schemas.ts';

export type Conversation = z.infer<typeof conversationSchema>;
export type Attachment = z.infer<typeof attachmentSchema>;
export type Message = z.infer<typeof messageSchema>;
export type ConversationWithMessages = z.infer<typeof conversationWithMessagesSchema>;
export type VisitorFile = z.infer<typeof visitorFileSchema>;
export type Lead = z.infer<typeof leadSchema>;
export type Ticket = z.infer<typeof ticketSchema>;
export type TicketEntry = z.infer<typeof entrySchema>;
export type TicketWithEntries = z.infer<typeof ticketWithEntriesSchema>;

export type Channel = Conversation['channel'];
export const CHANNELS: Channel[] = ['widget', 'iframe', 'api', 'playground', 'email'];

export type TicketStatus = Ticket['status'];
export const TICKET_STATUSES: TicketStatus[] = ['open', 'waiting', 'solved'];

/**
 * A held e-mail draft on a ticket: the message's id. GET /app/api/agents/{a}/tickets/{t}/drafts
 * has no reply schema, so its shape is written here.
 */
export interface HeldDraft {
  id: string;
  draft: string;
  createdAt: string;
}
