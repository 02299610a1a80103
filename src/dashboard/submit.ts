import { useState } from 'preact/hooks';
import type { ApiError } from './api.ts';
import { asApiError } from './data.ts';

export interface Submit<Args extends unknown[]> {
  /** True while the action runs: its button shows it and takes no second press. */
  busy: boolean;
  /** The last run's error, cleared when the next run starts. */
  error: ApiError | undefined;
  setError: (error: ApiError | undefined) => void;
  /** Runs the action once (a button's onClick). */
  run: (...args: Args) => Promise<void>;
  /** A form's onSubmit: the page is not reloaded, the action runs without arguments. */
  submit: (event: Event) => Promise<void>;
}

/** An action against the API from a form or a button: busy while it runs, its error kept to show. */
export function useSubmit<Args extends unknown[] = []>(action: (...args: Args) => Promise<void>): Submit<Args> {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError>();
  const run = async (...args: Args) => {
    setBusy(true);
    setError(undefined);
    try {
      await action(...args);
    } catch (caught) {
      setError(asApiError(caught));
    } finally {
      setBusy(false);
    }
  };
  const submit = (event: Event) => {
    event.preventDefault();
    return (run as () => Promise<void>)();
  };
  return { busy, error, setError, run, submit };
}
