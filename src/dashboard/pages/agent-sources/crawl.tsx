import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, get, list, send } from '../../api.ts';
import { asApiError, useData, usePolling } from '../../data.ts';
import { formatNumber, t } from '../../i18n/index.ts';
import type { Crawl, CrawlPage } from '../../types.ts';
import { Button, ErrorNotice, Notice } from '../../components/index.ts';

/**
 * The latest crawl's progress (GET /agents/{id}/crawl; none when the agent was never crawled),
 * followed every 2 s while it runs; each step reloads the sources, so the pages read appear.
 */
export function CrawlProgress({ agentId, onProgress }: { agentId: string; onProgress: () => void }) {
  const crawl = useData(async () => {
    try {
      return await get<Crawl>(`/v1/agents/${encodeURIComponent(agentId)}/crawl`);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return null;
      throw error;
    }
  }, [agentId]);
  const running = crawl.data?.status === 'queued' || crawl.data?.status === 'running';
  usePolling(running, crawl.reload);
  const seen = useRef<string | undefined>(undefined);
  useEffect(() => {
    // Not on the first reading (the sources were asked for beside it), only when the crawl moved on.
    const now = crawl.data ? `${crawl.data.status}:${crawl.data.processed}` : undefined;
    if (seen.current !== undefined && now !== seen.current) onProgress();
    seen.current = now;
  }, [crawl.data?.processed, crawl.data?.status]);
  const [stopping, setStopping] = useState(false);
  const [stopError, setStopError] = useState<ApiError>();
  const stop = async () => {
    setStopping(true);
    setStopError(undefined);
    try {
      await send('DELETE', `/v1/agents/${encodeURIComponent(agentId)}/crawl`);
    } catch (caught) {
      setStopError(asApiError(caught));
    } finally {
      setStopping(false);
      void crawl.reload();
    }
  };
  const data = crawl.data;
  if (!data) return null;
  const counts = { processed: formatNumber(data.processed), discovered: formatNumber(data.discovered), pending: formatNumber(data.pending), failed: formatNumber(data.failed) };
  let said: string | undefined;
  if (running) said = t('crawl.running', counts);
  else if (data.stopReason === 'page_limit' || data.stopReason === 'storage_limit') said = t(`crawl.stopped.${data.stopReason}`, counts);
  else if (data.status === 'failed') said = t('crawl.failed', counts);
  else if (data.status === 'cancelled') said = t('sources.crawlCancelled', counts);
  return (
    <>
      <div class="sources-crawl">
        <Notice kind="info">{said}</Notice>
        {running && (
          <Button kind="danger" busy={stopping} onClick={stop}>
            {t('sources.stopCrawl')}
          </Button>
        )}
      </div>
      <ErrorNotice error={stopError} />
      {!running && (data.turnedAway ?? 0) > 0 && <TurnedAway agentId={agentId} crawlId={data.id} count={data.turnedAway ?? 0} />}
    </>
  );
}

/** The pages the latest crawl turned away and why (GET /agents/{id}/crawl/pages?status=turned_away), read when opened. */
function TurnedAway({ agentId, crawlId, count }: { agentId: string; crawlId: string; count: number }) {
  const [open, setOpen] = useState(false);
  return (
    <details class="card sources-turned-away" onToggle={(event) => setOpen((event.currentTarget as HTMLDetailsElement).open)}>
      <summary>{t('sources.turnedAwayPages', { count: formatNumber(count) })}</summary>
      {open && <TurnedAwayList agentId={agentId} crawlId={crawlId} />}
    </details>
  );
}

function TurnedAwayList({ agentId, crawlId }: { agentId: string; crawlId: string }) {
  const pages = useData(() => list<CrawlPage>(`/v1/agents/${encodeURIComponent(agentId)}/crawl/pages?status=turned_away&limit=100`), [agentId, crawlId]);
  if (pages.error) return <ErrorNotice error={pages.error} />;
  if (!pages.data) return <p>{t('app.loading')}</p>;
  return (
    <ul class="sources-turned-away-list">
      {pages.data.map((page) => (
        <li key={page.url}>
          <span class="sources-url">{page.url}</span>
          <span class="cell-note">{page.reason === 'login_page' || page.reason === 'too_little_content' ? t(`sources.reason.${page.reason}`) : page.reason}</span>
        </li>
      ))}
    </ul>
  );
}
