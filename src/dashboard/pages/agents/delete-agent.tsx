import { useState } from 'preact/hooks';
import { send, type ApiError } from '../../api.ts';
import { asApiError } from '../../data.ts';
import { t } from '../../i18n/index.ts';
import type { Agent } from '../../types.ts';
import { Button, Dialog, ErrorNotice, TextField } from '../../components/index.ts';

/** Deleting an agent: irreversible, so its name is typed to confirm. */
export function DeleteAgentDialog({ agent, onClose, onDeleted }: { agent: Agent | undefined; onClose: () => void; onDeleted: (agent: Agent) => void }) {
  const [typed, setTyped] = useState('');
  const [mismatch, setMismatch] = useState(false);
  const [error, setError] = useState<ApiError>();
  const [busy, setBusy] = useState(false);
  const close = () => {
    setTyped('');
    setMismatch(false);
    setError(undefined);
    onClose();
  };
  const submit = async (event: Event) => {
    event.preventDefault();
    if (!agent) return;
    if (typed.trim() !== agent.name.trim()) return setMismatch(true);
    setBusy(true);
    try {
      await send('DELETE', `/v1/agents/${encodeURIComponent(agent.id)}`);
      close();
      onDeleted(agent);
    } catch (caught) {
      setError(asApiError(caught));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog open={agent !== undefined} title={agent ? t('agents.deleteTitle', { name: agent.name }) : ''} onClose={close}>
      <form onSubmit={submit} noValidate>
        <p>{t('agents.deleteWarning')}</p>
        <ErrorNotice error={error} />
        <TextField label={t('agents.deleteConfirm')} value={typed} onInput={(value) => { setTyped(value); setMismatch(false); }} error={mismatch ? t('agents.deleteMismatch') : undefined} autoComplete="off" />
        <div class="form-actions">
          <Button kind="danger" type="submit" busy={busy}>
            {t('agents.delete')}
          </Button>
          <Button onClick={close}>{t('app.cancel')}</Button>
        </div>
      </form>
    </Dialog>
  );
}
