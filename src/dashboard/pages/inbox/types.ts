/** The shapes the inbox pages read (spec api-v1 2.8-2.11). */
export type Channel = 'widget' | 'iframe' | 'api' | 'playground' | 'email';
export const CHANNELS: Channel[] = ['widget', 'iframe', 'api', 'playground', 'email'];

export interface Conversation {
  id: string;
  channel: Channel;
  userId: string | null;
  startedAt: string;
  lastMessageAt: string;
  messageCount: number;
  firstMessage: string;
  lastConfidence: number | null;
  openedBy: 'launcher' | 'greeting' | 'nudge' | null;
  from: string | null;
}

export interface Attachment {
  id: string;
  fileName: string;
  kind: string;
  mediaType: string;
  sizeBytes: number;
  pages: number | null;
  truncated: boolean;
  ocrPages: number | null;
}

export interface Message {
  id: string;
  role: 'user' | 'assistant';
  content: string;
  createdAt: string;
  attachments: Attachment[];
  page: { url: string; title: string | null } | null;
  confidence: number | null;
  grounding: 'supported' | 'partial' | 'unsupported' | null;
  sources: { id: string; name: string; similarity: number; url: string | null }[];
  feedback: 1 | -1 | null;
  model: string | null;
  held: boolean;
}

export interface ConversationWithMessages extends Conversation {
  messages: Message[];
}

export interface VisitorFile extends Attachment {
  conversationId: string | null;
  stored: boolean;
  text: string | null;
}

export interface Lead {
  id: string;
  conversationId: string | null;
  name: string | null;
  email: string | null;
  phone: string | null;
  company: string | null;
  companyDomain: string | null;
  marketing: boolean;
  moment: 'before' | 'questions' | 'weak_answer' | 'button';
  page: { url: string; title: string | null } | null;
  language: string;
  shown: { intro: string; consent: string; privacyUrl: string | null; marketing: string | null };
  createdAt: string;
  expiresAt: string;
}

export type TicketStatus = 'open' | 'waiting' | 'solved';
export const TICKET_STATUSES: TicketStatus[] = ['open', 'waiting', 'solved'];

export interface Ticket {
  id: string;
  number: number;
  status: TicketStatus;
  email: string;
  name: string | null;
  question: string;
  language: string;
  signedIn: boolean;
  page: { url: string } | null;
  conversationId: string | null;
  createdAt: string;
  lastActivityAt: string;
  solvedAt: string | null;
  expiresAt: string | null;
  helpdesk: { provider: string; number: string; url: string } | null;
}

export interface TicketEntry {
  id: string;
  kind: 'visitor' | 'team' | 'note' | 'held';
  body: string;
  from: string | null;
  mailError: string | null;
  createdAt: string;
}

export interface TicketWithEntries extends Ticket {
  entries: TicketEntry[];
}

/** A held e-mail draft on a ticket (GET /app/api/agents/{a}/tickets/{t}/drafts): the message's id. */
export interface HeldDraft {
  id: string;
  draft: string;
  createdAt: string;
}
