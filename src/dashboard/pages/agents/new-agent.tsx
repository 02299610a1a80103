import { useState } from 'preact/hooks';
import { send } from '../../api.ts';
import { flash } from '../../data.ts';
import { useSubmit } from '../../submit.ts';
import { t } from '../../i18n/index.ts';
import { navigate } from '../../router.ts';
import { USE_CASES, type Agent, type UseCase } from '../../types.ts';
import { Button, Dialog, ErrorNotice, Select, TextField } from '../../components/index.ts';

/** The "New agent" dialog: name, use case, an optional website crawled at once; then the agent's sources. */
export function NewAgentDialog({ open, useCase: initialUseCase = 'general', onClose }: { open: boolean; useCase?: UseCase; onClose: () => void }) {
  const [name, setName] = useState('');
  const [useCase, setUseCase] = useState<UseCase>(initialUseCase);
  const [website, setWebsite] = useState('');
  const [opened, setOpened] = useState(open);
  const { busy, error, setError, submit } = useSubmit(async () => {
    const agent = await send<Agent & { crawlError?: { message: string } }>('POST', '/v1/agents', { name, useCase, ...(website.trim() ? { website: website.trim() } : {}) });
    if (agent.crawlError) flash(t('agents.crawlError', { message: agent.crawlError.message }), 'error');
    setName('');
    setWebsite('');
    onClose();
    navigate(`/app/agents/${encodeURIComponent(agent.id)}/sources`);
  });
  if (open !== opened) {
    // Each opening starts with the use case it was opened for.
    setOpened(open);
    if (open) {
      setUseCase(initialUseCase);
      setError(undefined);
    }
  }

  return (
    <Dialog open={open} title={t('agents.new')} onClose={onClose}>
      <form onSubmit={submit} noValidate>
        {error && error.details.length === 0 ? <ErrorNotice error={error} /> : <ErrorNotice error={undefined} />}
        <TextField label={t('agents.name')} value={name} onInput={setName} error={error?.field('name')} />
        <Select label={t('agents.useCase')} value={useCase} options={USE_CASES.map((value) => ({ value, label: t(`useCase.${value}`) }))} onChange={(value) => setUseCase(value as UseCase)} error={error?.field('useCase')} />
        <TextField label={t('agents.website')} type="url" optional hint={t('agents.websiteHint')} value={website} onInput={setWebsite} error={error?.field('website')} />
        <div class="form-actions">
          <Button kind="primary" type="submit" busy={busy}>
            {t('agents.create')}
          </Button>
          <Button onClick={onClose}>{t('app.cancel')}</Button>
        </div>
      </form>
    </Dialog>
  );
}
