import { useState } from 'preact/hooks';
import type { ApiError } from './api.ts';
import { asApiError } from './data.ts';

export interface Submit {
  /** True while the action runs: the submit button shows it and takes no second press. */
  busy: boolean;
  /** The last try's error, cleared when the next try starts. */
  error: ApiError | undefined;
  setError: (error: ApiError | undefined) => void;
  /** Runs the action once: a form's onSubmit (the page is not reloaded) or a button's onClick. */
  submit: (event?: Event) => Promise<void>;
}

/** A form's or a button's action against the API: busy while it runs, its error kept to show. */
export function useSubmit(action: () => Promise<void>): Submit {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError>();
  const submit = async (event?: Event) => {
    event?.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await action();
    } catch (caught) {
      setError(asApiError(caught));
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, setError, submit };
}
