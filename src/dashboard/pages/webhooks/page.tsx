/**
 * Webhooks (owners and admins): the workspace's webhooks (GET /webhooks, spec 4.14), one
 * added (its signing secret shown once), deleted, "Switch on" for one switched off, and
 * each one's recent deliveries with every attempt (docs/people.md, "Webhooks").
 */
import { useState } from 'preact/hooks';
import { list, send, type ApiError } from '../../api.ts';
import { asApiError, useData } from '../../data.ts';
import { useSubmit } from '../../submit.ts';
import { formatDate, formatNumber, t } from '../../i18n/index.ts';
import type { PageProps } from '../../routes.ts';
import type { Agent, Delivery, Webhook } from '../../types.ts';
import { Badge, Button, Dialog, EmptyState, ErrorNotice, Notice, PageHeader, Select, Table, TextField } from '../../components/index.ts';


const EVENTS = ['lead.created', 'ticket.created'];

export default function WebhooksPage({ params }: PageProps) {
  const webhooks = useData(() => list<Webhook>('/v1/webhooks'), []);
  const agents = useData(() => list<Agent>('/v1/agents'), []);
  const [adding, setAdding] = useState(false);
  const [secret, setSecret] = useState<{ url: string; secret: string }>();
  const [deleting, setDeleting] = useState<Webhook>();
  // /app/webhooks/:webhookId (the link of the "switched off" mail) opens that webhook's deliveries.
  const [open, setOpen] = useState<string | undefined>(params.webhookId);
  const [message, setMessage] = useState<string>();
  const [error, setError] = useState<ApiError>();
  const agentName = (id: string | null) => (id === null ? t('webhooks.allAgents') : agents.data?.find((a) => a.id === id)?.name ?? id);

  const switchOn = async (webhook: Webhook) => {
    setError(undefined);
    try {
      await send('POST', `/webhooks/${encodeURIComponent(webhook.id)}/enable`);
      setMessage(t('webhooks.switchedOn', { url: webhook.url }));
      void webhooks.reload();
    } catch (caught) {
      setError(asApiError(caught));
    }
  };

  return (
    <>
      <PageHeader
        title={t('nav.webhooks')}
        actions={
          <Button kind="primary" onClick={() => setAdding(true)}>
            {t('webhooks.add')}
          </Button>
        }
      >
        <p>{t('webhooks.intro')}</p>
      </PageHeader>
      <Notice kind="success">{message}</Notice>
      {(error ?? webhooks.error) && <ErrorNotice error={error ?? webhooks.error} />}
      {secret && (
        <section class="card webhooks-secret" aria-labelledby="webhooks-secret">
          <h2 id="webhooks-secret">{t('webhooks.secretTitle')}</h2>
          <p>{t('webhooks.secretOnce', { url: secret.url })}</p>
          <p>
            <code class="webhooks-secret-value">{secret.secret}</code>
          </p>
          <div class="form-actions">
            <Button onClick={() => void navigator.clipboard?.writeText(secret.secret)}>{t('webhooks.copy')}</Button>
            <Button kind="quiet" onClick={() => setSecret(undefined)}>
              {t('webhooks.secretDone')}
            </Button>
          </div>
        </section>
      )}
      {webhooks.data && webhooks.data.length === 0 && <EmptyState title={t('webhooks.empty')} />}
      {webhooks.data && webhooks.data.length > 0 && (
        <ul class="webhooks-list">
          {webhooks.data.map((webhook) => (
            <li key={webhook.id} class={`card${webhook.id === params.webhookId ? ' webhooks-linked' : ''}`}>
              <div class="webhooks-head">
                <div>
                  <p class="webhooks-url">{webhook.url}</p>
                  <p class="cell-note">
                    {webhook.events.join(', ')} · {agentName(webhook.agentId)}
                  </p>
                </div>
                {webhook.active ? <Badge tone="good">{t('webhooks.active')}</Badge> : <Badge tone="bad">{t('webhooks.off', { date: formatDate(webhook.disabledAt) })}</Badge>}
              </div>
              <div class="form-actions">
                {!webhook.active && (
                  <Button kind="primary" aria-label={t('webhooks.switchOnNamed', { url: webhook.url })} onClick={() => void switchOn(webhook)}>
                    {t('webhooks.switchOn')}
                  </Button>
                )}
                <Button aria-expanded={open === webhook.id} aria-label={t('webhooks.deliveriesOf', { url: webhook.url })} onClick={() => setOpen(open === webhook.id ? undefined : webhook.id)}>
                  {t('webhooks.deliveries')}
                </Button>
                <Button kind="quiet" aria-label={t('webhooks.deleteNamed', { url: webhook.url })} onClick={() => setDeleting(webhook)}>
                  {t('webhooks.delete')}
                </Button>
              </div>
              {open === webhook.id && <Deliveries webhook={webhook} />}
            </li>
          ))}
        </ul>
      )}
      {webhooks.data === undefined && !webhooks.error && <EmptyState title={t('app.loading')} />}
      <AddWebhookDialog
        open={adding}
        agents={agents.data ?? []}
        onClose={() => setAdding(false)}
        onAdded={(added) => {
          setSecret(added);
          setMessage(undefined);
          void webhooks.reload();
        }}
      />
      <Dialog open={deleting !== undefined} title={deleting ? t('webhooks.deleteNamed', { url: deleting.url }) : ''} onClose={() => setDeleting(undefined)}>
        <p>{t('webhooks.deleteWarning')}</p>
        <div class="form-actions">
          <Button
            kind="danger"
            onClick={async () => {
              const webhook = deleting!;
              setDeleting(undefined);
              try {
                await send('DELETE', `/v1/webhooks/${encodeURIComponent(webhook.id)}`);
                setMessage(t('webhooks.deleted', { url: webhook.url }));
                void webhooks.reload();
              } catch (caught) {
                setError(asApiError(caught));
              }
            }}
          >
            {t('webhooks.delete')}
          </Button>
          <Button onClick={() => setDeleting(undefined)}>{t('app.cancel')}</Button>
        </div>
      </Dialog>
    </>
  );
}

/** A webhook's 50 most recent deliveries, newest first, each with every attempt. */
function Deliveries({ webhook }: { webhook: Webhook }) {
  const deliveries = useData(() => list<Delivery>(`/webhooks/${encodeURIComponent(webhook.id)}/deliveries`), [webhook.id, webhook.active]);
  return (
    <section class="webhooks-deliveries" aria-label={t('webhooks.deliveriesOf', { url: webhook.url })}>
      <ErrorNotice error={deliveries.error} />
      {deliveries.data && deliveries.data.length === 0 && <p>{t('webhooks.noDeliveries')}</p>}
      {deliveries.data && deliveries.data.length > 0 && (
        <Table
          caption={t('webhooks.deliveriesOf', { url: webhook.url })}
          rows={deliveries.data}
          rowKey={(d) => d.id}
          columns={[
            { label: t('webhooks.event'), cell: (d) => (<>{d.event}<span class="cell-note">{formatDate(d.createdAt)}</span></>) },
            { label: t('webhooks.status'), cell: (d) => <Badge tone={d.status === 'delivered' ? 'good' : d.status === 'pending' ? 'busy' : 'bad'}>{t(d.status === 'delivered' ? 'webhooks.delivered' : d.status === 'pending' ? 'webhooks.pending' : 'webhooks.failed')}</Badge> },
            {
              label: t('webhooks.attempts'),
              cell: (d) => (
                <ol class="webhooks-attempts">
                  {d.attempts.map((a) => (
                    <li key={a.number}>
                      {formatDate(a.at)} · {a.statusCode === null ? (a.error ?? t('webhooks.noAnswer')) : t('webhooks.statusCode', { code: a.statusCode })}
                      {a.durationMs !== null && <> · {t('webhooks.duration', { ms: formatNumber(a.durationMs) })}</>}
                    </li>
                  ))}
                </ol>
              ),
            },
          ]}
        />
      )}
    </section>
  );
}

function AddWebhookDialog({ open, agents, onClose, onAdded }: { open: boolean; agents: Agent[]; onClose: () => void; onAdded: (added: { url: string; secret: string }) => void }) {
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>(EVENTS);
  const [agentId, setAgentId] = useState('');
  const { busy, error, submit } = useSubmit(async () => {
    const added = await send<Webhook & { secret: string }>('POST', '/v1/webhooks', { url: url.trim(), events, ...(agentId ? { agentId } : {}) });
    setUrl('');
    onClose();
    onAdded({ url: added.url, secret: added.secret });
  });
  return (
    <Dialog open={open} title={t('webhooks.add')} onClose={onClose}>
      <form onSubmit={submit} noValidate>
        <ErrorNotice error={error && error.details.length === 0 ? error : undefined} />
        <TextField label={t('webhooks.url')} type="url" hint={t('webhooks.urlHint')} value={url} onInput={setUrl} error={error?.field('url')} autoComplete="off" />
        <fieldset class="webhooks-events">
          <legend>{t('webhooks.events')}</legend>
          {EVENTS.map((name) => (
            <label key={name} class="people-agent">
              <input type="checkbox" checked={events.includes(name)} onChange={(e) => setEvents((all) => (e.currentTarget.checked ? [...all, name] : all.filter((x) => x !== name)))} />
              {name}
            </label>
          ))}
          {error?.field('events') && <p class="field-error">{error.field('events')}</p>}
        </fieldset>
        <Select label={t('webhooks.agent')} value={agentId} options={[{ value: '', label: t('webhooks.allAgents') }, ...agents.map((a) => ({ value: a.id, label: a.name }))]} onChange={setAgentId} error={error?.field('agentId')} />
        <div class="form-actions">
          <Button kind="primary" type="submit" busy={busy}>
            {t('webhooks.add')}
          </Button>
          <Button onClick={onClose}>{t('app.cancel')}</Button>
        </div>
      </form>
    </Dialog>
  );
}
