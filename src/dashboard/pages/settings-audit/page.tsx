/**
 * Settings, Audit log (owners and admins; GET /app/api/audit, docs/people.md "The audit log"):
 * who (a person, a key or the operator), what and when, newest first, filtered by person, key,
 * action and period; "Show more" follows the cursor.
 */
import { useState } from 'preact/hooks';
import { call, list, type ListReply } from '../../api.ts';
import { useData } from '../../data.ts';
import { formatDate, t } from '../../i18n/index.ts';
import type { PageProps } from '../../routes.ts';
import type { AuditEntry as Entry, ListedKey, Person } from '../../types.ts';
import { Button, EmptyState, ErrorNotice, Select, Table, TextField } from '../../components/index.ts';
import { SettingsFrame } from '../settings/frame.tsx';

interface Filter {
  who: string;
  action: string;
  from: string;
  to: string;
}

const EMPTY: Filter = { who: '', action: '', from: '', to: '' };

function queryOf(filter: Filter, cursor?: string): string {
  const query = new URLSearchParams();
  const [kind, id] = filter.who.split(':');
  if (kind === 'person' && id) query.set('personId', id);
  if (kind === 'key' && id) query.set('keyId', id);
  if (filter.action.trim()) query.set('action', filter.action.trim());
  // Dates of the person's calendar: from the start of the first day to the start of the day after the last.
  if (filter.from) query.set('from', new Date(`${filter.from}T00:00:00`).toISOString());
  if (filter.to) query.set('to', new Date(new Date(`${filter.to}T00:00:00`).getTime() + 86_400_000).toISOString());
  if (cursor) query.set('cursor', cursor);
  const text = query.toString();
  return text ? `/audit?${text}` : '/audit';
}

/** Who made the change; a person or key since removed (the API gives their name null) is said to be so. */
function who({ by }: Entry): string {
  if (by.kind === 'operator') return t('audit.operator');
  if (by.kind === 'key') return by.name !== null && by.prefix !== null ? t('audit.key', { name: by.name, prefix: by.prefix }) : t('audit.keyGone');
  if (by.email === null) return t('audit.personGone');
  return by.name ? `${by.name} (${by.email})` : by.email;
}

export default function AuditPage(_props: PageProps) {
  const [draft, setDraft] = useState<Filter>(EMPTY);
  const [filter, setFilter] = useState<Filter>(EMPTY);
  const [more, setMore] = useState<{ entries: Entry[]; cursor: string | null }>();
  const people = useData(() => list<Person>('/people'), []);
  const keys = useData(() => list<ListedKey>('/keys'), []);
  const entries = useData(async () => {
    setMore(undefined);
    return call<ListReply<Entry>>('GET', queryOf(filter));
  }, [filter]);
  const shown = [...(entries.data?.data ?? []), ...(more?.entries ?? [])];
  const cursor = more ? more.cursor : entries.data?.pagination.nextCursor ?? null;
  const [loadingMore, setLoadingMore] = useState(false);


  return (
    <SettingsFrame tab="audit">
      <h2>{t('settings.audit')}</h2>
      <form
        class="card audit-filters"
        role="search"
        aria-label={t('audit.filters')}
        onSubmit={(event) => {
          event.preventDefault();
          setFilter(draft);
        }}
      >
        <Select
          label={t('audit.who')}
          value={draft.who}
          options={[
            { value: '', label: t('audit.anyone') },
            ...(people.data ?? []).map((p) => ({ value: `person:${p.id}`, label: p.name ? `${p.name} (${p.email})` : p.email })),
            ...(keys.data ?? []).map((k) => ({ value: `key:${k.id}`, label: t('audit.key', { name: k.name, prefix: k.prefix }) })),
          ]}
          onChange={(value) => setDraft({ ...draft, who: value })}
        />
        <TextField label={t('audit.action')} optional hint={t('audit.actionHint')} value={draft.action} onInput={(value) => setDraft({ ...draft, action: value })} error={entries.error?.field('action')} autoComplete="off" />
        <DateField label={t('audit.from')} value={draft.from} onInput={(value) => setDraft({ ...draft, from: value })} />
        <DateField label={t('audit.to')} value={draft.to} onInput={(value) => setDraft({ ...draft, to: value })} />
        <div class="form-actions">
          <Button kind="primary" type="submit">
            {t('audit.apply')}
          </Button>
          <Button
            onClick={() => {
              setDraft(EMPTY);
              setFilter(EMPTY);
            }}
          >
            {t('audit.clear')}
          </Button>
        </div>
      </form>
      {entries.error && <ErrorNotice error={entries.error} />}
      {entries.data && shown.length === 0 && <EmptyState title={t('audit.empty')} />}
      {shown.length > 0 && (
        <Table
          caption={t('settings.audit')}
          rows={shown}
          rowKey={(entry) => entry.id}
          columns={[
            { label: t('audit.when'), cell: (entry) => formatDate(entry.createdAt) },
            { label: t('audit.who'), cell: (entry) => (<>{who(entry)}{entry.via === 'mcp' && <span class="cell-note">{t('audit.viaMcp')}</span>}</>) },
            { label: t('audit.what'), cell: (entry) => (<><code>{entry.action}</code>{entry.target && <span class="cell-note">{entry.target}</span>}</>) },
          ]}
        />
      )}
      {cursor && (
        <div class="form-actions">
          <Button
            busy={loadingMore}
            onClick={async () => {
              setLoadingMore(true);
              try {
                const page = await call<ListReply<Entry>>('GET', queryOf(filter, cursor));
                setMore({ entries: [...(more?.entries ?? []), ...page.data], cursor: page.pagination.nextCursor });
              } finally {
                setLoadingMore(false);
              }
            }}
          >
            {t('audit.more')}
          </Button>
        </div>
      )}
      {entries.data === undefined && !entries.error && <EmptyState title={t('app.loading')} />}
    </SettingsFrame>
  );
}

/** A date (the browser's date picker); TextField has no date type, so a field of the same build. */
function DateField({ label, value, onInput }: { label: string; value: string; onInput: (value: string) => void }) {
  const id = `audit-${label.replace(/\W+/g, '-').toLowerCase()}`;
  return (
    <div class="field">
      <label for={id}>
        {label} <span class="field-optional">{t('app.optional')}</span>
      </label>
      <input id={id} type="date" value={value} onInput={(event) => onInput(event.currentTarget.value)} />
    </div>
  );
}
