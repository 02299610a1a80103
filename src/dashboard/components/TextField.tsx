import { useId } from 'preact/hooks';
import type { TargetedEvent } from 'preact';
import { t } from '../i18n/index.ts';

export interface TextFieldProps {
  label: string;
  value: string;
  onInput: (value: string) => void;
  /** The API's message for this field (ApiError.field(name)). */
  error?: string;
  hint?: string;
  type?: 'text' | 'email' | 'password' | 'url' | 'search';
  multiline?: boolean;
  rows?: number;
  optional?: boolean;
  autoComplete?: string;
  name?: string;
  inputRef?: { current: HTMLInputElement | HTMLTextAreaElement | null };
}

/** A labelled text box (or text area), its hint and the API's error for it, tied together for screen readers. */
export function TextField({ label, value, onInput, error, hint, type = 'text', multiline, rows = 6, optional, autoComplete, name, inputRef }: TextFieldProps) {
  const id = useId();
  const described = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  const common = {
    id,
    name,
    value,
    'aria-invalid': error ? ('true' as const) : undefined,
    'aria-describedby': described,
    onInput: (event: TargetedEvent<HTMLInputElement | HTMLTextAreaElement>) => onInput(event.currentTarget.value),
  };
  return (
    <div class={`field${error ? ' field-invalid' : ''}`}>
      <label for={id}>
        {label}
        {optional && <span class="field-optional"> {t('app.optional')}</span>}
      </label>
      {hint && (
        <p class="field-hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {multiline ? (
        <textarea {...common} rows={rows} ref={inputRef as { current: HTMLTextAreaElement | null }} />
      ) : (
        <input {...common} type={type as 'text'} autoComplete={autoComplete} ref={inputRef as { current: HTMLInputElement | null }} />
      )}
      {error && (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}
