import { t } from '../i18n/index.ts';
import type { ApiError } from '../api.ts';
import { Notice } from './Notice.tsx';

/** An API error in plain words: its message (the field-level details go beside their fields). */
export function ErrorNotice({ error }: { error: ApiError | undefined }) {
  if (!error) return <Notice kind="error" />;
  return <Notice kind="error">{error.code === 'network' ? t('app.network') : t('app.error', { message: error.message })}</Notice>;
}
