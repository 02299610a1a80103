/**
 * An agent's sources: every source with its type, status, error and turnedAway in plain words,
 * size and passages, followed while any is being read; "Add text"; the preset's sources to gather.
 */
import { useState } from 'preact/hooks';
import { get, list, send } from '../../api.ts';
import { takeFlash, useData, type Flash, usePolling } from '../../data.ts';
import { useSubmit } from '../../submit.ts';
import { formatBytes, formatDate, formatNumber, t } from '../../i18n/index.ts';
import type { PageProps } from '../../routes.ts';
import type { Agent, SetupGuide, Source } from '../../types.ts';
import { Badge, Button, Dialog, EmptyState, ErrorNotice, Notice, Table } from '../../components/index.ts';
import { AgentFrame } from '../agent/frame.tsx';
import { SourcesToGather } from '../agents/first-run.tsx';
import { AddTextDialog } from './add-text.tsx';
import { CrawlProgress } from './crawl.tsx';
import { AddSourceDialog, type AddKind } from './add-source.tsx';
import { UploadFiles } from './upload.tsx';

const STATUS_TONE = { pending: 'busy', ready: 'good', failed: 'bad' } as const;

export default function SourcesPage({ params }: PageProps) {
  const agentId = params.agentId!;
  return <AgentFrame agentId={agentId} tab="sources">{(agent) => <Sources agentId={agentId} agent={agent.data} />}</AgentFrame>;
}

function Sources({ agentId, agent }: { agentId: string; agent: Agent | undefined }) {
  const sources = useData(() => list<Source>(`/v1/agents/${encodeURIComponent(agentId)}/sources`), [agentId]);
  const [adding, setAdding] = useState(false);
  const [addingKind, setAddingKind] = useState<AddKind>();
  const [deleting, setDeleting] = useState<Source>();
  const [crawlKey, setCrawlKey] = useState(0);
  const [message, setMessage] = useState<Flash | undefined>(takeFlash);
  usePolling(sources.data?.some((source) => source.status === 'pending') ?? false, sources.reload);

  return (
    <section class="sources" aria-labelledby="sources-title">
      <div class="page-header">
        <div class="page-header-text">
          <h2 id="sources-title">{t('sources.title')}</h2>
          <p class="page-header-summary">{t('sources.intro')}</p>
        </div>
        <div class="page-header-actions">
          <Button kind="primary" onClick={() => setAdding(true)}>
            {t('sources.addText')}
          </Button>
          <Button onClick={() => setAddingKind('qa')}>{t('sources.addQa')}</Button>
          <Button onClick={() => setAddingKind('website')}>{t('sources.addWebsite')}</Button>
          <Button onClick={() => setAddingKind('file')}>{t('sources.addFileUrl')}</Button>
        </div>
      </div>
      <Notice kind={message?.kind ?? 'success'}>{message?.text}</Notice>
      <CrawlProgress key={crawlKey} agentId={agentId} onProgress={() => void sources.reload()} />
      <UploadFiles agentId={agentId} onUploaded={() => void sources.reload()} />
      <Retrain agentId={agentId} onRetrained={() => void sources.reload()} />
      {sources.error && <ErrorNotice error={sources.error} />}
      {sources.data && sources.data.length === 0 && <EmptyState title={t('sources.empty')} />}
      {sources.data && sources.data.length > 0 && (
        <Table
          caption={t('sources.title')}
          rows={sources.data}
          rowKey={(source) => source.id}
          columns={[
            {
              label: t('sources.name'),
              cell: (source) => (
                <>
                  {source.name || source.url}
                  {source.url && source.type === 'website' && <span class="cell-note">{source.url}</span>}
                </>
              ),
            },
            { label: t('sources.type'), cell: (source) => t(`type.${source.type}`) },
            {
              label: t('sources.status'),
              cell: (source) => (
                <>
                  <Badge tone={STATUS_TONE[source.status]}>{t(`sourceStatus.${source.status}`)}</Badge>
                  {source.error && <span class="cell-note">{plainError(source.error)}</span>}
                  {source.turnedAway && <span class="cell-note">{plainTurnedAway(source.turnedAway)}</span>}
                </>
              ),
            },
            { label: t('sources.size'), numeric: true, cell: (source) => formatBytes(source.sizeBytes) },
            { label: t('sources.passages'), numeric: true, cell: (source) => formatNumber(source.chunkCount) },
            { label: t('sources.updated'), cell: (source) => formatDate(source.processedAt) },
            {
              label: t('sources.actions'),
              cell: (source) => (
                <Button kind="quiet" onClick={() => setDeleting(source)}>
                  {t('sources.delete', { name: source.name || source.url || '' })}
                </Button>
              ),
            },
          ]}
        />
      )}
      {agent?.useCase && <Gather useCase={agent.useCase} />}
      <AddTextDialog
        agentId={agentId}
        open={adding}
        onClose={() => setAdding(false)}
        onAdded={(source) => {
          setMessage({ kind: 'success', text: t('sources.added', { name: source.name }) });
          void sources.reload();
        }}
      />
      <AddSourceDialog
        agentId={agentId}
        kind={addingKind}
        onClose={() => setAddingKind(undefined)}
        onAdded={(text) => {
          setMessage({ kind: 'success', text });
          if (addingKind === 'website') setCrawlKey((key) => key + 1);
          void sources.reload();
        }}
      />
      <DeleteSource
        agentId={agentId}
        source={deleting}
        onClose={() => setDeleting(undefined)}
        onDeleted={(name) => {
          setMessage({ kind: 'success', text: t('sources.deleted', { name }) });
          void sources.reload();
        }}
      />
    </section>
  );
}

/** Delete a source, after asking (DELETE /agents/{id}/sources/{sourceId}). */
function DeleteSource({ agentId, source, onClose, onDeleted }: { agentId: string; source: Source | undefined; onClose: () => void; onDeleted: (name: string) => void }) {
  const name = source ? source.name || source.url || '' : '';
  const { busy, error, run: confirm } = useSubmit(async () => {
    if (!source) return;
    await send('DELETE', `/v1/agents/${encodeURIComponent(agentId)}/sources/${encodeURIComponent(source.id)}`);
    onClose();
    onDeleted(name);
  });
  return (
    <Dialog open={source !== undefined} title={t('sources.deleteTitle', { name })} onClose={onClose}>
      <ErrorNotice error={error} />
      <p>{t('sources.deleteExplain')}</p>
      <div class="form-actions">
        <Button kind="danger" busy={busy} onClick={confirm}>
          {t('sources.deleteConfirm')}
        </Button>
        <Button onClick={onClose}>{t('app.cancel')}</Button>
      </div>
    </Dialog>
  );
}

/**
 * "Retrain": every source read again from what was stored (POST /agents/{id}/retrain). Ten a day;
 * the reply says how many are left today, and the API's 409 (busy) and 429 (limit) messages show.
 */
function Retrain({ agentId, onRetrained }: { agentId: string; onRetrained: () => void }) {
  const [left, setLeft] = useState<number>();
  const { busy, error, run: retrain } = useSubmit(async () => {
    const reply = await send<{ retrainsLeft: number }>('POST', `/v1/agents/${encodeURIComponent(agentId)}/retrain`);
    setLeft(reply.retrainsLeft);
    onRetrained();
  });
  return (
    <div class="card sources-retrain">
      <div>
        <p>{t('sources.retrainExplain')}</p>
        <p class="field-hint">{left === undefined ? t('sources.retrainsPerDay') : t('sources.retrainsLeft', { count: formatNumber(left) })}</p>
      </div>
      <Button busy={busy} onClick={retrain}>
        {t('sources.retrain')}
      </Button>
      <ErrorNotice error={error} />
    </div>
  );
}

/** The preset's list of what to gather, read when opened. */
function Gather({ useCase }: { useCase: string }) {
  const [open, setOpen] = useState(false);
  return (
    <details class="card" onToggle={(event) => setOpen((event.currentTarget as HTMLDetailsElement).open)}>
      <summary>{t('sources.gather')}</summary>
      {open && <GatherList useCase={useCase} />}
    </details>
  );
}

function GatherList({ useCase }: { useCase: string }) {
  const guide = useData(() => get<SetupGuide>(`/v1/setup-guide?useCase=${encodeURIComponent(useCase)}`), [useCase]);
  if (guide.error) return <ErrorNotice error={guide.error} />;
  const preset = guide.data?.presets[0];
  return preset ? <SourcesToGather preset={preset} heading="" /> : <p>{t('app.loading')}</p>;
}

function plainError(error: string): string {
  const key = `sourceError.${error}`;
  return key in KNOWN_ERRORS ? t(key as keyof typeof KNOWN_ERRORS) : error;
}

function plainTurnedAway(reason: string): string {
  const key = `turnedAway.${reason}`;
  return key in KNOWN_TURNED_AWAY ? t(key as keyof typeof KNOWN_TURNED_AWAY) : reason;
}

const KNOWN_ERRORS = {
  'sourceError.file_unreadable': 1,
  'sourceError.no_content': 1,
  'sourceError.too_large': 1,
  'sourceError.never_finished': 1,
  'sourceError.temporary': 1,
  'sourceError.file_too_complex': 1,
} as const;
const KNOWN_TURNED_AWAY = { 'turnedAway.login_page': 1, 'turnedAway.too_little_content': 1 } as const;
