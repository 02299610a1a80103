/**
 * Analytics (spec 2.14, 4.13): one agent's figures for a period of UTC days (7, 30 or 90 days,
 * a month, or from–to; the API refuses more than 366 days and its message shows beside the
 * field), the daily chart of conversations and questions, the confidence bands, the top
 * questions, the weakest answers (each a link to its conversation and "Correct it"), the
 * widget's funnel and its start pages. Every chart has its numbers as text or a hidden table.
 */
import { useMemo, useState } from 'preact/hooks';
import { get, list } from '../../api.ts';
import { useData } from '../../data.ts';
import { AGENTS_LIST, DEFAULT_ANALYTICS_DAYS, analyticsAgentOf, analyticsFigures, lastDays, type Period } from '../../first-requests.ts';
import { currentLanguage, formatNumber, t } from '../../i18n/index.ts';
import { navigate } from '../../router.ts';
import type { PageProps } from '../../routes.ts';
import type { Agent, Analytics } from '../../types.ts';
import { EmptyState, ErrorNotice, PageHeader, Select, Table } from '../../components/index.ts';
import { DailyChart } from './chart.tsx';

type PeriodKind = '7' | '30' | '90' | 'month' | 'custom';
const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The period's from and to (UTC days) for a choice; today is the reader's UTC day. */
function periodOf(kind: PeriodKind, month: string, from: string, to: string): Period {
  const today = utcDay(Date.now());
  if (kind === 'custom') return { from, to };
  if (kind === 'month') {
    const [year, number] = month.split('-').map(Number) as [number, number];
    const last = utcDay(Date.UTC(year, number, 0));
    return { from: `${month}-01`, to: last < today ? last : today };
  }
  return lastDays(today, Number(kind));
}

/** The last 13 months, newest first, as YYYY-MM. */
function recentMonths(): string[] {
  const now = new Date();
  return Array.from({ length: 13 }, (_, i) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - i, 1)).toISOString().slice(0, 7));
}

export default function AnalyticsPage({ query }: PageProps) {
  const agents = useData(() => list<Agent>(AGENTS_LIST), []);
  // The agent chosen is in the address (else the first: the server preloads its figures with the page).
  const choose = (id: string) => navigate(`/app/analytics?agent=${encodeURIComponent(id)}`, { replace: true });
  const agentId = analyticsAgentOf(query, agents.data?.[0]?.id);
  const months = useMemo(recentMonths, []);
  const [kind, setKind] = useState<PeriodKind>(String(DEFAULT_ANALYTICS_DAYS) as PeriodKind);
  const [month, setMonth] = useState(months[0]!);
  const [custom, setCustom] = useState(() => periodOf(String(DEFAULT_ANALYTICS_DAYS) as PeriodKind, '', '', ''));
  const period = periodOf(kind, month, custom.from, custom.to);

  return (
    <>
      <PageHeader title={t('nav.analytics')}>{t('analytics.intro')}</PageHeader>
      {agents.error && <ErrorNotice error={agents.error} />}
      {agents.data && agents.data.length === 0 && <EmptyState title={t('analytics.noAgents')} />}
      {agentId && (
        <>
          <div class="analytics-controls">
            {agents.data && <Select label={t('analytics.agent')} value={agentId} options={agents.data.map((agent) => ({ value: agent.id, label: agent.name }))} onChange={choose} />}
            <Select
              label={t('analytics.period')}
              value={kind}
              options={['7', '30', '90'].map((days): { value: string; label: string } => ({ value: days, label: t('analytics.lastDays', { days }) })).concat([
                { value: 'month', label: t('analytics.aMonth') },
                { value: 'custom', label: t('analytics.custom') },
              ])}
              onChange={(value) => setKind(value as PeriodKind)}
            />
            {kind === 'month' && <Select label={t('analytics.month')} value={month} options={months.map((m) => ({ value: m, label: monthName(m) }))} onChange={setMonth} />}
          </div>
          <Figures agentId={agentId} period={period} custom={kind === 'custom' ? { value: custom, onChange: setCustom } : undefined} />
        </>
      )}
    </>
  );
}

function monthName(month: string): string {
  return new Intl.DateTimeFormat(currentLanguage(), { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${month}-01T00:00:00Z`));
}

function dayName(day: string): string {
  return new Intl.DateTimeFormat(currentLanguage(), { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(`${day}T00:00:00Z`));
}

const percent = (share: number) => new Intl.NumberFormat(currentLanguage(), { style: 'percent', maximumFractionDigits: 1 }).format(share);

interface CustomPeriod {
  value: { from: string; to: string };
  onChange: (value: { from: string; to: string }) => void;
}

function Figures({ agentId, period, custom }: { agentId: string; period: { from: string; to: string }; custom?: CustomPeriod }) {
  const figures = useData(() => get<Analytics>(analyticsFigures(agentId, period)), [agentId, period.from, period.to]);
  const error = figures.error;
  const fieldError = error && (error.field('from') || error.field('to')) ? error : undefined;
  const data = figures.error ? undefined : figures.data;
  return (
    <>
      {custom && (
        <div class="analytics-controls">
          <DateField label={t('analytics.from')} value={custom.value.from} onChange={(from) => custom.onChange({ ...custom.value, from })} error={fieldError?.field('from')} />
          <DateField label={t('analytics.to')} value={custom.value.to} onChange={(to) => custom.onChange({ ...custom.value, to })} error={fieldError?.field('to')} />
        </div>
      )}
      {error && !(custom && fieldError) && <ErrorNotice error={error} />}
      {!data && !error && <p>{t('app.loading')}</p>}
      {data && <Report agentId={agentId} data={data} />}
    </>
  );
}

function DateField({ label, value, onChange, error }: { label: string; value: string; onChange: (value: string) => void; error?: string }) {
  const id = `analytics-${label.replace(/\W/g, '')}`;
  return (
    <div class={`field${error ? ' field-invalid' : ''}`}>
      <label for={id}>{label}</label>
      <input id={id} type="date" value={value} aria-invalid={error ? 'true' : undefined} aria-describedby={error ? `${id}-error` : undefined} onChange={(event) => onChange(event.currentTarget.value)} />
      {error && (
        <p class="field-error" id={`${id}-error`} role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

function Report({ agentId, data }: { agentId: string; data: Analytics }) {
  const days = useMemo(() => data.series.map((d) => d.date), [data]);
  const series = useMemo(
    () => [
      { label: t('analytics.conversations'), values: data.series.map((d) => d.conversations), color: '--color-primary' },
      { label: t('analytics.questions'), values: data.series.map((d) => d.questions), color: '--color-bad-text' },
    ],
    [data],
  );
  const base = `/app/agents/${encodeURIComponent(agentId)}/inbox/conversations/`;
  const bandTotal = Math.max(1, data.bands.high.answers + data.bands.medium.answers + data.bands.low.answers);
  const funnelTop = Math.max(1, data.widget.opened, data.widget.conversations, data.widget.leads);
  return (
    <div class="analytics">
      <p class="cell-note">{t('analytics.periodShown', { from: dayName(data.from), to: dayName(data.to) })}</p>
      <dl class="analytics-figures">
        <Figure label={t('analytics.conversations')} value={formatNumber(data.conversations)} />
        <Figure label={t('analytics.questions')} value={formatNumber(data.questions)} />
        <Figure label={t('analytics.helpful')} value={formatNumber(data.helpful)} />
        <Figure label={t('analytics.notHelpful')} value={formatNumber(data.notHelpful)} />
        <Figure label={t('analytics.averageConfidence')} value={data.averageConfidence === null ? '–' : formatNumber(data.averageConfidence)} />
        <Figure label={t('analytics.weakShare')} value={data.weakShare === null ? '–' : percent(data.weakShare)} />
      </dl>

      <section class="card" aria-labelledby="analytics-daily">
        <h2 id="analytics-daily">{t('analytics.perDay')}</h2>
        <p class="analytics-legend" aria-hidden="true">
          <span class="analytics-key analytics-key-primary" /> {t('analytics.conversations')} <span class="analytics-key analytics-key-second" /> {t('analytics.questions')}
        </p>
        <DailyChart days={days} series={series} />
        <div class="visually-hidden">
        <table>
          <caption>{t('analytics.perDay')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('analytics.day')}</th>
              <th scope="col">{t('analytics.conversations')}</th>
              <th scope="col">{t('analytics.questions')}</th>
            </tr>
          </thead>
          <tbody>
            {data.series.map((d) => (
              <tr key={d.date}>
                <th scope="row">{dayName(d.date)}</th>
                <td>{d.conversations}</td>
                <td>{d.questions}</td>
              </tr>
            ))}
          </tbody>
        </table>
        </div>
      </section>

      <section class="card" aria-labelledby="analytics-bands">
        <h2 id="analytics-bands">{t('analytics.bands')}</h2>
        <ul class="analytics-bars">
          {(['high', 'medium', 'low'] as const).map((name) => {
            const band = data.bands[name];
            return (
              <li key={name}>
                <span class="analytics-bar-label">{t('analytics.band', { band: t(`analytics.band.${name}`), min: band.min, max: band.max, answers: formatNumber(band.answers) })}</span>
                <span class={`analytics-bar analytics-bar-${name}`} style={{ width: `${(100 * band.answers) / bandTotal}%` }} aria-hidden="true" />
              </li>
            );
          })}
        </ul>
      </section>

      <section class="card" aria-labelledby="analytics-top">
        <h2 id="analytics-top">{t('analytics.topQuestions')}</h2>
        {data.topQuestions.length === 0 ? (
          <p>{t('analytics.none')}</p>
        ) : (
          <Table
            caption={t('analytics.topQuestions')}
            rows={data.topQuestions}
            rowKey={(q) => q.text}
            columns={[
              { label: t('analytics.question'), cell: (q) => q.text },
              { label: t('analytics.asked'), numeric: true, cell: (q) => formatNumber(q.count) },
            ]}
          />
        )}
      </section>

      <section class="card" aria-labelledby="analytics-weakest">
        <h2 id="analytics-weakest">{t('analytics.weakest')}</h2>
        <p class="cell-note">{t('analytics.weakestIntro')}</p>
        {data.weakest.length === 0 ? (
          <p>{t('analytics.none')}</p>
        ) : (
          <Table
            caption={t('analytics.weakest')}
            rows={data.weakest}
            rowKey={(w) => w.messageId}
            columns={[
              {
                label: t('analytics.question'),
                cell: (w) => (
                  <>
                    <a href={`${base}${encodeURIComponent(w.conversationId)}`}>{w.question ?? t('analytics.noQuestion')}</a>
                    <span class="cell-note">{w.answer}</span>
                  </>
                ),
              },
              { label: t('analytics.confidence'), numeric: true, cell: (w) => formatNumber(w.confidence) },
              {
                label: t('analytics.action'),
                cell: (w) => (
                  <a href={`${base}${encodeURIComponent(w.conversationId)}?correct=${encodeURIComponent(w.messageId)}`} aria-label={t('analytics.correctOne', { question: w.question ?? w.answer.slice(0, 40) })}>
                    {t('analytics.correct')}
                  </a>
                ),
              },
            ]}
          />
        )}
      </section>

      <section class="card" aria-labelledby="analytics-funnel">
        <h2 id="analytics-funnel">{t('analytics.funnel')}</h2>
        <ul class="analytics-bars">
          {(
            [
              ['opened', data.widget.opened],
              ['conversations', data.widget.conversations],
              ['leads', data.widget.leads],
            ] as const
          ).map(([name, value]) => (
            <li key={name}>
              <span class="analytics-bar-label">
                {t(`analytics.funnel.${name}`)}: {formatNumber(value)}
              </span>
              <span class="analytics-bar analytics-bar-high" style={{ width: `${(100 * value) / funnelTop}%` }} aria-hidden="true" />
            </li>
          ))}
        </ul>
        <p class="cell-note">{t('analytics.declined', { count: formatNumber(data.widget.leadFormsDeclined) })}</p>
        <Table
          caption={t('analytics.byOpener')}
          rows={(['launcher', 'greeting', 'nudge'] as const).slice()}
          rowKey={(name) => name}
          columns={[
            { label: t('analytics.openedBy'), cell: (name) => t(`analytics.opener.${name}`) },
            { label: t('analytics.funnel.opened'), numeric: true, cell: (name) => formatNumber(data.widget.openedBy[name]) },
            { label: t('analytics.funnel.conversations'), numeric: true, cell: (name) => formatNumber(data.widget.conversationsBy[name]) },
          ]}
        />
      </section>

      <section class="card" aria-labelledby="analytics-pages">
        <h2 id="analytics-pages">{t('analytics.startPages')}</h2>
        {data.widget.startPages.length === 0 ? (
          <p>{t('analytics.none')}</p>
        ) : (
          <Table
            caption={t('analytics.startPages')}
            rows={data.widget.startPages}
            rowKey={(p) => p.url}
            columns={[
              {
                label: t('analytics.page'),
                cell: (p) => (
                  <>
                    {p.title ?? p.url}
                    {p.title && <span class="cell-note analytics-url">{p.url}</span>}
                  </>
                ),
              },
              { label: t('analytics.conversations'), numeric: true, cell: (p) => formatNumber(p.conversations) },
            ]}
          />
        )}
      </section>
    </div>
  );
}

function Figure({ label, value }: { label: string; value: string }) {
  return (
    <div class="analytics-figure">
      <dt>{label}</dt>
      <dd>{value}</dd>
    </div>
  );
}
