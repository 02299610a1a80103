import { useState } from 'preact/hooks';
import { send } from '../../api.ts';
import { useSubmit } from '../../submit.ts';
import { t } from '../../i18n/index.ts';
import type { Source } from '../../types.ts';
import { Button, Dialog, ErrorNotice, TextField } from '../../components/index.ts';

/** "Add text": a text source with a title and its content (POST /agents/{id}/sources, type text). */
export function AddTextDialog({ agentId, open, onClose, onAdded }: { agentId: string; open: boolean; onClose: () => void; onAdded: (source: Source) => void }) {
  const [title, setTitle] = useState('');
  const [content, setContent] = useState('');
  const { busy, error, submit } = useSubmit(async () => {
    const source = await send<Source>('POST', `/v1/agents/${encodeURIComponent(agentId)}/sources`, { type: 'text', title, content });
    setTitle('');
    setContent('');
    onClose();
    onAdded(source);
  });
  return (
    <Dialog open={open} title={t('sources.addText')} onClose={onClose}>
      <form onSubmit={submit} noValidate>
        <ErrorNotice error={error && !error.field('title') && !error.field('content') ? error : undefined} />
        <TextField label={t('sources.titleField')} value={title} onInput={setTitle} error={error?.field('title')} />
        <TextField label={t('sources.content')} multiline rows={10} value={content} onInput={setContent} error={error?.field('content')} />
        <div class="form-actions">
          <Button kind="primary" type="submit" busy={busy}>
            {t('sources.save')}
          </Button>
          <Button onClick={onClose}>{t('app.cancel')}</Button>
        </div>
      </form>
    </Dialog>
  );
}
