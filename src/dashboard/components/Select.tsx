import { useId } from 'preact/hooks';

export interface SelectProps {
  label: string;
  value: string;
  options: { value: string; label: string }[];
  onChange: (value: string) => void;
  error?: string;
  hint?: string;
  name?: string;
  /** Label hidden on screen (still named for screen readers), for compact places such as the header. */
  compact?: boolean;
}

/** A labelled choice from a list (a native <select>). */
export function Select({ label, value, options, onChange, error, hint, name, compact }: SelectProps) {
  const id = useId();
  const described = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div class={`field${compact ? ' field-compact' : ''}${error ? ' field-invalid' : ''}`}>
      <label for={id} class={compact ? 'visually-hidden' : undefined}>
        {label}
      </label>
      {hint && (
        <p class="field-hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      <select id={id} name={name} value={value} aria-invalid={error ? 'true' : undefined} aria-describedby={described} onChange={(event) => onChange(event.currentTarget.value)}>
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
      {error && (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}
