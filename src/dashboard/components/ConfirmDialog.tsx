import { t } from '../i18n/index.ts';
import { useSubmit } from '../submit.ts';
import { Button } from './Button.tsx';
import { Dialog } from './Dialog.tsx';
import { ErrorNotice } from './ErrorNotice.tsx';

export interface ConfirmDialogProps {
  open: boolean;
  title: string;
  text: string;
  /** The danger button's text, such as "Delete". */
  confirm: string;
  onClose: () => void;
  /** Runs on confirm; the dialog closes when it succeeds and shows its error when it fails. */
  onConfirm: () => Promise<void>;
}

/** Asks before something irreversible; the API's error stays in the dialog. */
export function ConfirmDialog({ open, title, text, confirm, onClose, onConfirm }: ConfirmDialogProps) {
  const { busy, error, setError, submit } = useSubmit(async () => {
    await onConfirm();
    close();
  });
  const close = () => {
    setError(undefined);
    onClose();
  };
  return (
    <Dialog open={open} title={title} onClose={close}>
      <form onSubmit={submit}>
        <p>{text}</p>
        <ErrorNotice error={error} />
        <div class="form-actions">
          <Button kind="danger" type="submit" busy={busy}>
            {confirm}
          </Button>
          <Button onClick={close}>{t('app.cancel')}</Button>
        </div>
      </form>
    </Dialog>
  );
}
