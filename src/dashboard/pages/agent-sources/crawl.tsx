import { useEffect, useRef } from 'preact/hooks';
import { ApiError, get } from '../../api.ts';
import { useData, usePolling } from '../../data.ts';
import { formatNumber, t } from '../../i18n/index.ts';
import { Notice } from '../../components/index.ts';

export interface Crawl {
  id: string;
  status: 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';
  processed: number;
  discovered: number;
  pending: number;
  failed: number;
  stopReason: string | null;
}

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
  const data = crawl.data;
  if (!data) return null;
  const counts = { processed: formatNumber(data.processed), discovered: formatNumber(data.discovered), pending: formatNumber(data.pending), failed: formatNumber(data.failed) };
  if (running) return <Notice kind="info">{t('crawl.running', counts)}</Notice>;
  if (data.stopReason === 'page_limit' || data.stopReason === 'storage_limit') return <Notice kind="info">{t(`crawl.stopped.${data.stopReason}`, counts)}</Notice>;
  if (data.status === 'failed') return <Notice kind="info">{t('crawl.failed', counts)}</Notice>;
  return null;
}
