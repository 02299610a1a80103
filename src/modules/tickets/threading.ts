import { senderOf } from '../../platform/mail.ts';

/**
 * Message-IDs of a ticket's mails, so a visitor's mail program shows the
 * confirmation and every reply as one conversation: the confirmation is the
 * thread's root (`<ticket id@host>`), each team reply `<entry id@host>`, in
 * reply to the one before, referencing all before it.
 */
export function ticketMessageId(publicUrl: string, id: string): string {
  const host = senderOf(publicUrl, null).address.split('@')[1];
  return `<${id}@${host}>`;
}

export function replyThreading(publicUrl: string, ticketId: string, earlierReplyIds: string[], replyId: string) {
  const references = [ticketId, ...earlierReplyIds].map((id) => ticketMessageId(publicUrl, id));
  return { messageId: ticketMessageId(publicUrl, replyId), inReplyTo: references.at(-1)!, references };
}
