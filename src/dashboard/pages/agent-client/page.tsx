/**
 * One agent's client and monthly reports (spec 2.12, 4.12): the client record (fees only when
 * the API returns them), the report settings, and the client's archive link, copied or renewed
 * (POST report-link stops the old one). Below the agency plan the API answers 402
 * clients_not_in_plan and the page says so in plain words.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, call, get, send } from '../../api.ts';
import { asApiError, useData } from '../../data.ts';
import { formatDate, t } from '../../i18n/index.ts';
import type { PageProps } from '../../routes.ts';
import type { ClientReply, Report } from '../../types.ts';
import { Badge, Button, Dialog, ErrorNotice, Notice, Select, Table, TextField } from '../../components/index.ts';
import { AgentFrame } from '../agent/frame.tsx';

const LANGUAGES = ['en', 'nl', 'fr', 'de', 'es'] as const;

export default function ClientPage({ params, me }: PageProps) {
  const agentId = params.agentId!;
  return <AgentFrame agentId={agentId} tab="client">{() => <Client agentId={agentId} maySeeFees={me.role === 'owner' || me.role === 'admin'} />}</AgentFrame>;
}

function Client({ agentId, maySeeFees }: { agentId: string; maySeeFees: boolean }) {
  const path = `/v1/agents/${encodeURIComponent(agentId)}/client`;
  const loaded = useData(() => get<ClientReply>(path), [path]);
  const [reply, setReply] = useState<ClientReply | undefined>();
  useEffect(() => setReply(loaded.data), [loaded.data]);

  if (loaded.error?.code === 'clients_not_in_plan') {
    return (
      <section aria-labelledby="client-title" class="card">
        <h2 id="client-title">{t('client.title')}</h2>
        <p>{t('client.notInPlan')}</p>
      </section>
    );
  }
  return (
    <section aria-labelledby="client-title">
      <h2 id="client-title">{t('client.title')}</h2>
      <p class="page-header-summary">{t('client.intro')}</p>
      {loaded.error && <ErrorNotice error={loaded.error} />}
      {!reply && !loaded.error && <p>{t('app.loading')}</p>}
      {reply && <ClientForm path={path} reply={reply} showFees={reply.client ? 'serviceFeeEur' in reply.client : maySeeFees} onSaved={setReply} />}
      {reply?.client && <Reports agentId={agentId} />}
      {reply?.report.link && <ArchiveLink path={path} link={reply.report.link} onRenewed={setReply} />}
    </section>
  );
}

const feeText = (fee: number | null | undefined) => (fee === null || fee === undefined ? '' : String(fee));
const feeValue = (text: string) => (text.trim() === '' ? null : Number(text.replace(',', '.')));

function ClientForm({ path, reply, showFees, onSaved }: { path: string; reply: ClientReply; showFees: boolean; onSaved: (reply: ClientReply) => void }) {
  const [form, setForm] = useState(() => ({
    name: reply.client?.name ?? '',
    email: reply.client?.email ?? '',
    language: reply.client?.language ?? 'en',
    serviceFeeEur: feeText(reply.client?.serviceFeeEur),
    setupFeeEur: feeText(reply.client?.setupFeeEur),
    reportsEnabled: reply.report.enabled,
    reportDay: String(reply.report.day),
    transcripts: reply.report.transcripts,
    holdForReview: reply.report.holdForReview,
    intro: reply.report.intro,
    signature: reply.report.signature,
  }));
  const [error, setError] = useState<ApiError | undefined>();
  const [saved, setSaved] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const set = <K extends keyof typeof form>(key: K) => (value: (typeof form)[K]) => setForm((before) => ({ ...before, [key]: value }));

  async function save(event: Event) {
    event.preventDefault();
    setBusy(true);
    setSaved(undefined);
    try {
      const body: Record<string, unknown> = {
        name: form.name,
        email: form.email,
        language: form.language,
        reportsEnabled: form.reportsEnabled,
        reportDay: Number(form.reportDay),
        transcripts: form.transcripts,
        holdForReview: form.holdForReview,
        intro: form.intro,
        signature: form.signature,
      };
      if (showFees) {
        body.serviceFeeEur = feeValue(form.serviceFeeEur);
        body.setupFeeEur = feeValue(form.setupFeeEur);
      }
      const next = await send<ClientReply>('PUT', path, body);
      setError(undefined);
      setSaved(t('client.saved'));
      onSaved(next);
    } catch (caught) {
      setError(asApiError(caught));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class="card client-form" onSubmit={save} noValidate>
      <h3>{t('client.record')}</h3>
      <TextField label={t('client.name')} value={form.name} onInput={set('name')} error={error?.field('name')} />
      <TextField label={t('client.email')} type="email" value={form.email} onInput={set('email')} error={error?.field('email')} />
      <Select label={t('client.language')} value={form.language} options={LANGUAGES.map((l) => ({ value: l, label: t(`client.lang.${l}`) }))} onChange={(value) => set('language')(value as (typeof LANGUAGES)[number])} error={error?.field('language')} />
      {showFees && (
        <>
          <TextField label={t('client.serviceFee')} value={form.serviceFeeEur} onInput={set('serviceFeeEur')} optional error={error?.field('serviceFeeEur')} />
          <TextField label={t('client.setupFee')} value={form.setupFeeEur} onInput={set('setupFeeEur')} optional error={error?.field('setupFeeEur')} />
        </>
      )}
      <h3>{t('client.reports')}</h3>
      <Check label={t('client.enabled')} checked={form.reportsEnabled} onChange={set('reportsEnabled')} />
      <Select label={t('client.day')} value={form.reportDay} options={Array.from({ length: 28 }, (_, i) => ({ value: String(i + 1), label: String(i + 1) }))} onChange={set('reportDay')} error={error?.field('reportDay')} />
      <Check label={t('client.transcripts')} checked={form.transcripts} onChange={set('transcripts')} />
      <Check label={t('client.hold')} checked={form.holdForReview} onChange={set('holdForReview')} />
      <TextField label={t('client.reportIntro')} multiline rows={4} value={form.intro} onInput={set('intro')} optional error={error?.field('intro')} />
      <TextField label={t('client.signature')} multiline rows={3} value={form.signature} onInput={set('signature')} optional error={error?.field('signature')} />
      {error && !error.details.length && <ErrorNotice error={error} />}
      <Notice kind="success">{saved}</Notice>
      <Button kind="primary" type="submit" busy={busy}>
        {t('client.save')}
      </Button>
    </form>
  );
}

function Check({ label, checked, onChange }: { label: string; checked: boolean; onChange: (value: boolean) => void }) {
  return (
    <label class="client-check">
      <input type="checkbox" checked={checked} onChange={(event) => onChange(event.currentTarget.checked)} /> {label}
    </label>
  );
}

function ArchiveLink({ path, link, onRenewed }: { path: string; link: string; onRenewed: (reply: ClientReply) => void }) {
  const [message, setMessage] = useState<string | undefined>();
  const [error, setError] = useState<ApiError | undefined>();
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);

  async function copy() {
    try {
      await navigator.clipboard.writeText(link);
      setMessage(t('client.copied'));
    } catch {
      setMessage(t('client.copyFailed'));
    }
  }
  async function renew() {
    setBusy(true);
    try {
      onRenewed(await send<ClientReply>('POST', `${path}/report-link`));
      setError(undefined);
      setMessage(t('client.renewed'));
      setConfirming(false);
    } catch (caught) {
      setError(asApiError(caught));
    } finally {
      setBusy(false);
    }
  }
  return (
    <section class="card" aria-labelledby="client-link">
      <h3 id="client-link">{t('client.archive')}</h3>
      <p class="cell-note">{t('client.archiveIntro')}</p>
      <div class="field">
        <label for="client-archive-link">{t('client.link')}</label>
        <input id="client-archive-link" type="text" readOnly value={link} />
      </div>
      <div class="page-header-actions">
        <Button onClick={() => void copy()}>{t('client.copy')}</Button>
        <Button kind="danger" onClick={() => setConfirming(true)}>
          {t('client.renew')}
        </Button>
      </div>
      <Notice kind="success">{message}</Notice>
      <Dialog open={confirming} title={t('client.renewTitle')} onClose={() => setConfirming(false)}>
        <p>{t('client.renewBody')}</p>
        {error && <ErrorNotice error={error} />}
        <div class="page-header-actions">
          <Button kind="danger" busy={busy} onClick={() => void renew()}>
            {t('client.renewConfirm')}
          </Button>
          <Button onClick={() => setConfirming(false)}>{t('app.cancel')}</Button>
        </div>
      </Dialog>
    </section>
  );
}


const REPORT_TONE = { pending: 'busy', making: 'busy', held: 'busy', sent: 'good', failed: 'bad', discarded: 'neutral' } as const;

/** The client's reports (people routes, docs/people.md): "Send report now", and each held one previewed as its PDF, released or discarded. */
function Reports({ agentId }: { agentId: string }) {
  const base = `/agents/${encodeURIComponent(agentId)}/client`;
  const reports = useData(async () => (await call<{ data: Report[] }>('GET', `${base}/reports`)).data, [base]);
  const [message, setMessage] = useState<string | undefined>();
  const [error, setError] = useState<ApiError | undefined>();
  const [busy, setBusy] = useState<string | undefined>();

  async function act(what: string, path: string, done: string) {
    setBusy(what);
    try {
      await call('POST', path);
      setError(undefined);
      setMessage(done);
      await reports.reload();
    } catch (caught) {
      setError(asApiError(caught));
    } finally {
      setBusy(undefined);
    }
  }
  return (
    <section class="card" aria-labelledby="client-sent">
      <h3 id="client-sent">{t('client.sent')}</h3>
      <div class="page-header-actions">
        <Button busy={busy === 'now'} onClick={() => void act('now', `${base}/report`, t('client.sentNow'))}>
          {t('client.sendNow')}
        </Button>
      </div>
      <Notice kind="success">{message}</Notice>
      {(error ?? reports.error) && <ErrorNotice error={error ?? reports.error} />}
      {reports.data && reports.data.length === 0 && <p>{t('client.noReports')}</p>}
      {reports.data && reports.data.length > 0 && (
        <Table
          caption={t('client.sent')}
          rows={reports.data}
          rowKey={(r) => r.id}
          columns={[
            { label: t('client.month'), cell: (r) => r.month },
            { label: t('client.status'), cell: (r) => <Badge tone={REPORT_TONE[r.status] ?? 'neutral'}>{t(`client.status.${r.status}`)}</Badge> },
            { label: t('client.made'), cell: (r) => formatDate(r.finishedAt ?? r.createdAt) },
            {
              label: t('analytics.action'),
              cell: (r) =>
                r.status === 'held' ? (
                  <span class="page-header-actions">
                    <a href={`/app/api${base}/reports/${encodeURIComponent(r.id)}/pdf`} target="_blank" rel="noopener">
                      {t('client.preview', { month: r.month })}
                    </a>
                    <Button kind="primary" busy={busy === `release-${r.id}`} onClick={() => void act(`release-${r.id}`, `${base}/reports/${encodeURIComponent(r.id)}/release`, t('client.released'))}>
                      {t('client.release', { month: r.month })}
                    </Button>
                    <Button kind="danger" busy={busy === `discard-${r.id}`} onClick={() => void act(`discard-${r.id}`, `${base}/reports/${encodeURIComponent(r.id)}/discard`, t('client.discarded'))}>
                      {t('client.discard', { month: r.month })}
                    </Button>
                  </span>
                ) : r.status === 'sent' ? (
                  <a href={`/app/api${base}/reports/${encodeURIComponent(r.id)}/pdf`} target="_blank" rel="noopener">
                    {t('client.preview', { month: r.month })}
                  </a>
                ) : null,
            },
          ]}
        />
      )}
    </section>
  );
}
