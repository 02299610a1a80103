/**
 * The shapes the inbox pages read (spec api-v1 2.8-2.11): the types of the API's zod schemas,
 * re-exported as types only (esbuild drops them; the bundle holds no schema).
 */
import type { ConversationView } from '../../../modules/chat/schemas.ts';
import type { TicketView } from '../../../modules/tickets/service.ts';

export type { ConversationView as Conversation, ConversationWithMessagesView as ConversationWithMessages, MessageView as Message } from '../../../modules/chat/schemas.ts';
export type { LeadView as Lead } from '../../../modules/leads/schemas.ts';
export type { EntryView as TicketEntry, TicketView as Ticket, TicketWithEntries } from '../../../modules/tickets/service.ts';
export type { AttachmentView as Attachment, VisitorFileView as VisitorFile } from '../../../modules/visitor-files/schemas.ts';

export type Channel = ConversationView['channel'];
export const CHANNELS: Channel[] = ['widget', 'iframe', 'api', 'playground', 'email'];

export type TicketStatus = TicketView['status'];
export const TICKET_STATUSES: TicketStatus[] = ['open', 'waiting', 'solved'];

/** A held e-mail draft on a ticket: the message's id (GET /app/api/agents/{a}/tickets/{t}/drafts). */
export type { HeldDraft } from '../../../modules/people/schemas.ts';
