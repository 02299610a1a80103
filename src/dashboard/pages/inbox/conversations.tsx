/**
 * The inbox's conversations: filtered by channel, period, confidence band, feedback and a search
 * over their text (docs/chat.md, "Filters and search"; the filters live in the address, so a
 * filtered list can be linked), read a page at a time, each a link to its messages;
 * "Export as PDF" asks the export route for a link to the filtered set (the same filters).
 */
import { useId, useState } from 'preact/hooks';
import { get, type ApiError } from '../../api.ts';
import { asApiError, takeFlash, type Flash } from '../../data.ts';
import { formatDate, formatNumber, t } from '../../i18n/index.ts';
import { navigate } from '../../router.ts';
import type { PageProps } from '../../routes.ts';
import { Button, EmptyState, ErrorNotice, Notice, Select, Table, TextField } from '../../components/index.ts';
import { conversationFilters, conversationsList, CONVERSATION_FILTERS } from '../../first-requests.ts';
import { agentApi, InboxFrame, inboxPath, ShowMore, usePaged } from './frame.tsx';
import { CHANNELS, type Conversation } from './types.ts';

const BANDS = ['high', 'medium', 'low'] as const;
const FEEDBACK = ['up', 'down', 'none'] as const;

export default function ConversationsPage({ params, query }: PageProps) {
  const agentId = params.agentId!;
  const filters = conversationFilters(query);
  const filterString = filters.toString();
  const setFilter = (name: (typeof CONVERSATION_FILTERS)[number], value: string) => {
    const next = new URLSearchParams(filterString);
    if (value) next.set(name, value);
    else next.delete(name);
    const search = next.toString();
    navigate(`${inboxPath(agentId, 'conversations')}${search ? `?${search}` : ''}`, { replace: true });
  };
  const [search, setSearch] = useState(filters.get('q') ?? '');
  const conversations = usePaged<Conversation>(conversationsList(agentId, filters));
  const [message] = useState<Flash | undefined>(takeFlash);
  const [exported, setExported] = useState<{ url: string; expiresAt: string }>();
  const [exportError, setExportError] = useState<ApiError>();
  const [exporting, setExporting] = useState(false);
  const exportPdf = async () => {
    setExporting(true);
    setExportError(undefined);
    setExported(undefined);
    try {
      setExported(await get<{ url: string; expiresAt: string }>(agentApi(agentId, `conversations/export${filterString ? `?${filterString}` : ''}`)));
    } catch (caught) {
      setExportError(asApiError(caught));
    } finally {
      setExporting(false);
    }
  };

  return (
    <InboxFrame agentId={agentId} tab="conversations">
      <section aria-labelledby="conversations-title">
        <h2 id="conversations-title">{t('inbox.conversations')}</h2>
        <Notice kind={message?.kind ?? 'success'}>{message?.text}</Notice>
        <form
          class="inbox-filters"
          role="search"
          aria-label={t('inbox.filters')}
          onSubmit={(event) => {
            event.preventDefault();
            setFilter('q', search.trim());
          }}
        >
          <div class="inbox2-search">
            <TextField label={t('inbox2.search')} value={search} onInput={setSearch} hint={t('inbox2.searchHint')} error={conversations.error?.field('q')} />
            <Button type="submit">{t('inbox2.searchAction')}</Button>
          </div>
          <Select
            label={t('inbox.channel')}
            value={filters.get('channel') ?? ''}
            options={[{ value: '', label: t('inbox.allChannels') }, ...CHANNELS.map((channel) => ({ value: channel, label: t(`inbox.channel.${channel}`) }))]}
            onChange={(value) => setFilter('channel', value)}
          />
          <DateField label={t('inbox.fromDay')} value={filters.get('from') ?? ''} onChange={(value) => setFilter('from', value)} />
          <DateField label={t('inbox.toDay')} value={filters.get('to') ?? ''} onChange={(value) => setFilter('to', value)} />
          <Select
            label={t('inbox2.confidence')}
            value={filters.get('confidence') ?? ''}
            options={[{ value: '', label: t('inbox2.anyConfidence') }, ...BANDS.map((band) => ({ value: band, label: t(`inbox2.band.${band}`) }))]}
            onChange={(value) => setFilter('confidence', value)}
          />
          <Select
            label={t('inbox2.feedback')}
            value={filters.get('feedback') ?? ''}
            options={[{ value: '', label: t('inbox2.anyFeedback') }, ...FEEDBACK.map((which) => ({ value: which, label: t(`inbox2.feedback.${which}`) }))]}
            onChange={(value) => setFilter('feedback', value)}
          />
          <div class="inbox-filters-action">
            <Button busy={exporting} onClick={() => void exportPdf()}>
              {t('inbox.export')}
            </Button>
          </div>
        </form>
        <p class="cell-note">{t('inbox.exportNote')}</p>
        <ErrorNotice error={exportError} />
        <Notice>
          {exported && (
            <>
              {t('inbox.exportReady', { time: formatDate(exported.expiresAt) })}{' '}
              <a href={exported.url} target="_blank" rel="noopener">
                {t('inbox.exportOpen')}
              </a>
            </>
          )}
        </Notice>
        {conversations.error && !conversations.error.field('q') && <ErrorNotice error={conversations.error} />}
        {conversations.items && conversations.items.length === 0 && <EmptyState title={filterString ? t('inbox.noConversationsFiltered') : t('inbox.noConversations')} />}
        {conversations.items && conversations.items.length > 0 && (
          <Table
            caption={t('inbox.conversations')}
            rows={conversations.items}
            rowKey={(conversation) => conversation.id}
            columns={[
              {
                label: t('inbox.firstMessage'),
                cell: (conversation) => (
                  <>
                    <a href={inboxPath(agentId, 'conversations', conversation.id)} class="inbox-clip">
                      {conversation.firstMessage || t('inbox.noText')}
                    </a>
                    {conversation.from && <span class="cell-note inbox-clip">{conversation.from}</span>}
                  </>
                ),
              },
              { label: t('inbox.channel'), cell: (conversation) => t(`inbox.channel.${conversation.channel}`) },
              { label: t('inbox.messages'), numeric: true, cell: (conversation) => formatNumber(conversation.messageCount) },
              { label: t('inbox.confidence'), numeric: true, cell: (conversation) => (conversation.lastConfidence === null ? '' : formatNumber(conversation.lastConfidence)) },
              { label: t('inbox.lastMessage'), cell: (conversation) => formatDate(conversation.lastMessageAt) },
            ]}
          />
        )}
        {!conversations.items && !conversations.error && <p role="status">{t('app.loading')}</p>}
        <ShowMore paged={conversations} />
      </section>
    </InboxFrame>
  );
}

/** A labelled day (YYYY-MM-DD), styled as the other fields. */
function DateField({ label, value, onChange }: { label: string; value: string; onChange: (value: string) => void }) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input id={id} type="date" value={value} onChange={(event) => onChange(event.currentTarget.value)} />
    </div>
  );
}
