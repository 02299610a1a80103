import { useState } from 'preact/hooks';
import { send } from '../../api.ts';
import { useSubmit } from '../../submit.ts';
import { t } from '../../i18n/index.ts';
import { Button, Dialog, ErrorNotice, Select, TextField } from '../../components/index.ts';

export type AddKind = 'website' | 'qa' | 'file';

/**
 * "Add a website" (url, mode, excluded paths one a line), "Add a Q&A pair" (question, answer) and
 * "Add a file by address" (url, optional name): POST /agents/{id}/sources with that type. The
 * API's messages show beside the fields they name; nothing is checked here.
 */
export function AddSourceDialog({ agentId, kind, onClose, onAdded }: { agentId: string; kind: AddKind | undefined; onClose: () => void; onAdded: (what: string) => void }) {
  const [fields, setFields] = useState<Record<string, string>>({ mode: 'links' });
  const set = (name: string) => (value: string) => setFields((before) => ({ ...before, [name]: value }));
  const close = () => {
    setError(undefined);
    onClose();
  };
  const body = (): Record<string, unknown> => {
    if (kind === 'website') {
      const excludePaths = (fields.excludePaths ?? '').split('\n').map((line) => line.trim()).filter(Boolean);
      return { type: 'website', url: fields.url ?? '', mode: fields.mode, ...(excludePaths.length ? { excludePaths } : {}) };
    }
    if (kind === 'qa') return { type: 'qa', question: fields.question ?? '', answer: fields.answer ?? '' };
    return { type: 'file', url: fields.url ?? '', ...(fields.name ? { name: fields.name } : {}) };
  };
  const { busy, error, setError, submit } = useSubmit(async () => {
    const made = await send<{ name?: string }>('POST', `/v1/agents/${encodeURIComponent(agentId)}/sources`, body());
    setFields({ mode: 'links' });
    close();
    onAdded(kind === 'website' ? t('sources.crawlStarted') : t('sources.added', { name: made.name ?? '' }));
  });
  const named = ['url', 'mode', 'excludePaths', 'question', 'answer', 'name'];
  const title = kind === 'website' ? t('sources.addWebsite') : kind === 'qa' ? t('sources.addQa') : t('sources.addFileUrl');
  return (
    <Dialog open={kind !== undefined} title={title} onClose={close}>
      <form onSubmit={submit} noValidate>
        <ErrorNotice error={error && !named.some((name) => error.field(name)) ? error : undefined} />
        {kind === 'website' && (
          <>
            <TextField label={t('sources.websiteUrl')} type="url" value={fields.url ?? ''} onInput={set('url')} error={error?.field('url')} />
            <Select
              label={t('sources.mode')}
              value={fields.mode ?? 'links'}
              onChange={set('mode')}
              error={error?.field('mode')}
              options={[
                { value: 'links', label: t('sources.mode.links') },
                { value: 'sitemap', label: t('sources.mode.sitemap') },
                { value: 'single', label: t('sources.mode.single') },
              ]}
            />
            <TextField label={t('sources.excludePaths')} hint={t('sources.excludePathsHint')} multiline rows={3} optional value={fields.excludePaths ?? ''} onInput={set('excludePaths')} error={error?.field('excludePaths')} />
          </>
        )}
        {kind === 'qa' && (
          <>
            <TextField label={t('sources.question')} value={fields.question ?? ''} onInput={set('question')} error={error?.field('question')} />
            <TextField label={t('sources.answer')} multiline rows={6} value={fields.answer ?? ''} onInput={set('answer')} error={error?.field('answer')} />
          </>
        )}
        {kind === 'file' && (
          <>
            <TextField label={t('sources.fileUrl')} hint={t('sources.fileKinds')} type="url" value={fields.url ?? ''} onInput={set('url')} error={error?.field('url')} />
            <TextField label={t('sources.fileName')} optional value={fields.name ?? ''} onInput={set('name')} error={error?.field('name')} />
          </>
        )}
        <div class="form-actions">
          <Button kind="primary" type="submit" busy={busy}>
            {kind === 'website' ? t('sources.startCrawl') : t('sources.add')}
          </Button>
          <Button onClick={close}>{t('app.cancel')}</Button>
        </div>
      </form>
    </Dialog>
  );
}
