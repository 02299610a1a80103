/** Tickets (spec 2.11, 4.11; the visitor API's POST tickets): one zod schema per request and reply. */
import { z } from 'zod';
import { list, timestamp } from '../../http/schemas.ts';
import { isOneLine, ONE_LINE_MESSAGE } from '../../domain/text.ts';
import { pageQuery } from '../../domain/paging.ts';
import { languageSchema } from '../agents/schemas.ts';
import { ENTRY_KINDS, TICKET_STATUSES } from './store.ts';

export const MAX_QUESTION_CHARS = 4000;
export const MAX_NOTE_CHARS = 10_000;

const notBlank = (value: string) => value.trim().length > 0;

export const openTicketBody = z.strictObject({
  email: z.email().max(254).describe("the visitor's e-mail address; every mail about the ticket goes there"),
  name: z.string().max(100).refine(isOneLine, ONE_LINE_MESSAGE).optional().describe("the visitor's name, on one line"),
  question: z.string().min(1).max(MAX_QUESTION_CHARS).refine(notBlank, 'must not be blank').describe('the question, up to 4,000 characters'),
  conversationId: z.string().min(1).max(100).optional().describe('the conversation the ticket comes from; needs its x-visitor-token'),
  page: z.strictObject({ url: z.string().max(2000) }).optional().describe('the page the visitor is on'),
  language: languageSchema.optional().describe("the widget's language: every mail to the visitor is written in it; default the agent's language"),
  identity: z
    .strictObject({ email: z.string().max(254), hash: z.string().max(200) })
    .optional()
    .describe("a signed-in visitor: the site's e-mail for them and its HMAC-SHA256 under the agent's identity secret"),
});

export const openedTicketReply = z.object({ id: z.string(), number: z.number().int() }).meta({ id: 'OpenedTicket' });

export const ticketParams = z.strictObject({ id: z.string().max(100), ticketId: z.string().max(100) });

export const ticketListQuery = z.strictObject({ status: z.enum(TICKET_STATUSES).optional(), ...pageQuery });

export const ticketStatusBody = z.strictObject({ status: z.enum(TICKET_STATUSES) });

export const noteBody = z.strictObject({
  body: z.string().min(1).max(MAX_NOTE_CHARS).refine(notBlank, 'must not be blank').describe('the note, up to 10,000 characters; only the team sees it'),
});

const ticketFields = {
  id: z.string(),
  number: z.number().int().describe('counted per agent'),
  status: z.enum(TICKET_STATUSES),
  email: z.string(),
  name: z.string().nullable(),
  question: z.string(),
  language: z.string().describe("the widget's language when opened; every mail to the visitor is in it"),
  signedIn: z.boolean().describe('the address came from a signed-in visitor'),
  page: z.object({ url: z.string() }).nullable(),
  conversationId: z.string().nullable().describe('null for a ticket opened before the first message'),
  createdAt: timestamp,
  lastActivityAt: timestamp,
  solvedAt: timestamp.nullable(),
  expiresAt: timestamp.nullable().describe('when a solved ticket is deleted; null while not solved'),
  helpdesk: z.object({ provider: z.string(), number: z.string(), url: z.string() }).nullable(),
};

export const ticketSchema = z.object(ticketFields).meta({ id: 'Ticket' });

export const entrySchema = z
  .object({
    id: z.string(),
    kind: z.enum(ENTRY_KINDS),
    body: z.string(),
    from: z.string().nullable().describe('the address a visitor reply or held mail came from'),
    mailError: z.string().nullable().describe('why a reply to the visitor could not be mailed'),
    createdAt: timestamp,
  })
  .meta({ id: 'TicketEntry' });

export const ticketWithEntriesSchema = z.object({ ...ticketFields, entries: z.array(entrySchema).describe('oldest first') }).meta({ id: 'TicketWithEntries' });

/**
 * The list's reply: spec 4.1's list shape plus counts, the agent's tickets per status
 * whatever the page and the status filter (an addition for the inbox's tabs).
 */
export const ticketListReply = list(ticketSchema).extend({
  counts: z
    .object({ open: z.number().int(), waiting: z.number().int(), solved: z.number().int() })
    .describe("the agent's tickets per status, whatever status, limit and cursor ask for (expired solved tickets are gone)"),
});
