/** One lead: every field of spec 2.10, with what the form showed when the visitor agreed (the consent); delete. */
import { useState } from 'preact/hooks';
import { get, send } from '../../api.ts';
import { flash, useData } from '../../data.ts';
import { formatDate, t } from '../../i18n/index.ts';
import { navigate } from '../../router.ts';
import type { PageProps } from '../../routes.ts';
import { Button, ErrorNotice } from '../../components/index.ts';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { agentApi, Fields, InboxFrame, inboxPath, OutsideLink, PageLink } from './frame.tsx';
import type { Lead } from './types.ts';

export default function LeadPage({ params }: PageProps) {
  const agentId = params.agentId!;
  const leadId = params.leadId!;
  const lead = useData(() => get<Lead>(agentApi(agentId, `leads/${encodeURIComponent(leadId)}`)), [agentId, leadId]);
  const [deleting, setDeleting] = useState(false);
  const data = lead.data;
  return (
    <InboxFrame agentId={agentId} tab="leads">
      <p class="cell-note">
        <a href={inboxPath(agentId, 'leads')}>{t('inbox.backToLeads')}</a>
      </p>
      {lead.error && <ErrorNotice error={lead.error} />}
      {!data && !lead.error && <p role="status">{t('app.loading')}</p>}
      {data && (
        <article aria-labelledby="lead-title">
          <div class="page-header">
            <div class="page-header-text">
              <h2 id="lead-title">{data.name || data.email || data.phone || t('inbox.noName')}</h2>
            </div>
            <div class="page-header-actions">
              <Button kind="danger" onClick={() => setDeleting(true)}>
                {t('inbox.deleteLead')}
              </Button>
            </div>
          </div>
          <Fields
            rows={[
              [t('inbox.name'), data.name],
              [t('inbox.email'), data.email],
              [t('inbox.phone'), data.phone],
              [t('inbox.company'), data.company],
              [t('inbox.companyDomain'), data.companyDomain],
              [t('inbox.marketing'), data.marketing ? t('inbox.yes') : t('inbox.no')],
              [t('inbox.moment'), t(`inbox.moment.${data.moment}`)],
              [t('inbox.page'), data.page && <PageLink page={data.page} />],
              [t('inbox.language'), data.language],
              [t('inbox.received'), formatDate(data.createdAt)],
              [t('inbox.expires'), formatDate(data.expiresAt)],
              [t('inbox.conversation'), data.conversationId && <a href={inboxPath(agentId, 'conversations', data.conversationId)}>{t('inbox.openConversation')}</a>],
            ]}
          />
          <section class="card" aria-labelledby="lead-shown">
            <h3 id="lead-shown">{t('inbox.shown')}</h3>
            <Fields
              rows={[
                [t('inbox.shownIntro'), data.shown.intro],
                [t('inbox.shownConsent'), data.shown.consent],
                [t('inbox.shownPrivacy'), data.shown.privacyUrl && <OutsideLink url={data.shown.privacyUrl} />],
                [t('inbox.shownMarketing'), data.shown.marketing ?? t('inbox.noMarketingBox')],
              ]}
            />
          </section>
        </article>
      )}
      <ConfirmDialog
        open={deleting}
        title={t('inbox.deleteLeadTitle')}
        text={t('inbox.deleteLeadText')}
        confirm={t('inbox.delete')}
        onClose={() => setDeleting(false)}
        onConfirm={async () => {
          await send('DELETE', agentApi(agentId, `leads/${encodeURIComponent(leadId)}`));
          flash(t('inbox.leadDeleted'));
          navigate(inboxPath(agentId, 'leads'));
        }}
      />
    </InboxFrame>
  );
}
