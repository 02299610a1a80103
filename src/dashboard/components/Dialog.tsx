import { useEffect, useId, useRef } from 'preact/hooks';
import type { ComponentChildren } from 'preact';
import { t } from '../i18n/index.ts';

export interface DialogProps {
  open: boolean;
  title: string;
  onClose: () => void;
  children: ComponentChildren;
}

/**
 * A modal dialog on the native <dialog>: the browser keeps focus inside, makes the page
 * behind it inert, closes it on Escape and gives focus back to what opened it.
 */
export function Dialog({ open, title, onClose, children }: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} class="dialog" aria-labelledby={`${id}-title`} onClose={() => open && onClose()}>
      <div class="dialog-head">
        <h2 id={`${id}-title`}>{title}</h2>
        <button type="button" class="btn btn-quiet dialog-close" aria-label={t('app.close')} onClick={onClose}>
          ×
        </button>
      </div>
      {open && children}
    </dialog>
  );
}
