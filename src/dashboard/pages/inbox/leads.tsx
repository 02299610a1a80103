/**
 * The inbox's leads: newest first, a page at a time, each a link to every field it has;
 * "Download CSV" is a plain link to GET /app/api/v1/agents/{id}/leads.csv (every lead, docs/visitors.md).
 */
import { useState } from 'preact/hooks';
import { takeFlash, type Flash } from '../../data.ts';
import { formatDate, t } from '../../i18n/index.ts';
import type { PageProps } from '../../routes.ts';
import { EmptyState, ErrorNotice, Notice, Table } from '../../components/index.ts';
import { agentApi, InboxFrame, inboxPath, ShowMore, usePaged } from './frame.tsx';
import type { Lead } from './types.ts';

export default function LeadsPage({ params }: PageProps) {
  const agentId = params.agentId!;
  const leads = usePaged<Lead>(agentApi(agentId, 'leads?limit=50'));
  const [message] = useState<Flash | undefined>(takeFlash);
  return (
    <InboxFrame agentId={agentId} tab="leads">
      <section aria-labelledby="leads-title">
        <div class="inbox2-heading">
          <h2 id="leads-title">{t('inbox.leads')}</h2>
          {leads.items && leads.items.length > 0 && (
            <a class="btn btn-secondary" href={`/app/api${agentApi(agentId, 'leads.csv')}`} download>
              {t('inbox2.downloadCsv')}
            </a>
          )}
        </div>
        <Notice kind={message?.kind ?? 'success'}>{message?.text}</Notice>
        {leads.error && <ErrorNotice error={leads.error} />}
        {leads.items && leads.items.length === 0 && <EmptyState title={t('inbox.noLeads')} />}
        {leads.items && leads.items.length > 0 && (
          <Table
            caption={t('inbox.leads')}
            rows={leads.items}
            rowKey={(lead) => lead.id}
            columns={[
              { label: t('inbox.name'), cell: (lead) => <a href={inboxPath(agentId, 'leads', lead.id)}>{lead.name || lead.email || lead.phone || t('inbox.noName')}</a> },
              { label: t('inbox.email'), cell: (lead) => <span class="inbox-clip">{lead.email ?? ''}</span> },
              { label: t('inbox.company'), cell: (lead) => lead.company ?? lead.companyDomain ?? '' },
              { label: t('inbox.moment'), cell: (lead) => t(`inbox.moment.${lead.moment}`) },
              { label: t('inbox.received'), cell: (lead) => formatDate(lead.createdAt) },
            ]}
          />
        )}
        {!leads.items && !leads.error && <p role="status">{t('app.loading')}</p>}
        <ShowMore paged={leads} />
      </section>
    </InboxFrame>
  );
}
