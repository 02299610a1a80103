/**
 * The inbox's tickets by status with their counts, most recent activity first (the API's order),
 * 50 a page with "Show more". The counts are the list reply's `counts` (docs/visitors.md): the
 * agent's tickets per status, whatever the page asks for; open tickets are shown first.
 */
import { useState } from 'preact/hooks';
import type { ListReply } from '../../api.ts';
import { takeFlash, type Flash } from '../../data.ts';
import { formatDate, formatNumber, t } from '../../i18n/index.ts';
import type { PageProps } from '../../routes.ts';
import { Badge, EmptyState, ErrorNotice, Notice, Table, TabLinks } from '../../components/index.ts';
import { ticketsList, ticketStatusOf } from '../../first-requests.ts';
import { InboxFrame, inboxPath, ShowMore, usePaged } from './frame.tsx';
import { TICKET_STATUSES, type Ticket, type TicketStatus } from './types.ts';

export const STATUS_TONE = { open: 'bad', waiting: 'busy', solved: 'good' } as const;

type TicketList = ListReply<Ticket> & { counts: Record<TicketStatus, number> };

export default function TicketsPage({ params, query }: PageProps) {
  const agentId = params.agentId!;
  const status = ticketStatusOf(query);
  const tickets = usePaged<Ticket, TicketList>(ticketsList(agentId, status));
  const [message] = useState<Flash | undefined>(takeFlash);
  const counts = tickets.first?.counts;
  const count = (which: TicketStatus | 'all') => (counts ? (which === 'all' ? counts.open + counts.waiting + counts.solved : counts[which]) : 0);
  const shown = tickets.items;
  const base = inboxPath(agentId, 'tickets');
  return (
    <InboxFrame agentId={agentId} tab="tickets">
      <section aria-labelledby="tickets-title">
        <h2 id="tickets-title">{t('inbox.tickets')}</h2>
        <Notice kind={message?.kind ?? 'success'}>{message?.text}</Notice>
        <TabLinks
          label={t('inbox.status')}
          links={[...TICKET_STATUSES, 'all' as const].map((which) => ({
            href: `${base}?status=${which}`,
            label: counts ? t('inbox.statusCount', { status: t(`inbox.ticketStatus.${which}`), count: formatNumber(count(which)) }) : t(`inbox.ticketStatus.${which}`),
            current: which === status,
          }))}
        />
        {tickets.error && <ErrorNotice error={tickets.error} />}
        {shown && shown.length === 0 && <EmptyState title={t('inbox.noTickets')} />}
        {shown && shown.length > 0 && (
          <Table
            caption={t('inbox.tickets')}
            rows={shown}
            rowKey={(ticket) => ticket.id}
            columns={[
              {
                label: t('inbox.ticket'),
                cell: (ticket) => (
                  <>
                    <a href={inboxPath(agentId, 'tickets', ticket.id)}>{t('inbox.ticketNumber', { number: ticket.number })}</a>
                    <span class="cell-note inbox-clip">{ticket.question}</span>
                  </>
                ),
              },
              { label: t('inbox.visitor'), cell: (ticket) => <span class="inbox-clip">{ticket.name ? `${ticket.name} <${ticket.email}>` : ticket.email}</span> },
              { label: t('inbox.status'), cell: (ticket) => <Badge tone={STATUS_TONE[ticket.status]}>{t(`inbox.ticketStatus.${ticket.status}`)}</Badge> },
              { label: t('inbox.lastActivity'), cell: (ticket) => formatDate(ticket.lastActivityAt) },
            ]}
          />
        )}
        {!shown && !tickets.error && <p role="status">{t('app.loading')}</p>}
        <ShowMore paged={tickets} />
      </section>
    </InboxFrame>
  );
}
