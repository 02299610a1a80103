/** Loading a page's data: the state of one request, reloaded on demand or while something is under way. */
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api.ts';

export interface Loaded<T> {
  data: T | undefined;
  error: ApiError | undefined;
  loading: boolean;
  reload: () => Promise<void>;
}

export function useData<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: ApiError; loading: boolean }>({ loading: true });
  const generation = useRef(0);
  const reload = useCallback(async () => {
    const mine = ++generation.current;
    setState((before) => ({ ...before, loading: true }));
    try {
      const data = await load();
      if (mine === generation.current) setState({ data, loading: false });
    } catch (error) {
      if (mine === generation.current) setState((before) => ({ data: before.data, error: asApiError(error), loading: false }));
    }
  }, deps);
  // A layout effect: the request starts as soon as the page is rendered, not after the next frame.
  useLayoutEffect(() => {
    // Other deps ask for other data (another agent, period): the old data is not shown under them. Its
    // error stays until the new reply (cleared, a field's message would flicker while the request runs).
    setState((before) => (before.data === undefined ? before : { error: before.error, loading: true }));
    void reload();
    return () => {
      generation.current++;
    };
  }, [reload]);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

/** Calls reload every intervalMs while `active` (for statuses that change on the server). */
export function usePolling(active: boolean, reload: () => Promise<void>, intervalMs = 2000): void {
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => void reload(), intervalMs);
    return () => clearInterval(timer);
  }, [active, reload, intervalMs]);
}

export function asApiError(error: unknown): ApiError {
  return error instanceof ApiError ? error : new ApiError(0, 'internal_error', String(error));
}

/** A message for the next page (after a navigation), shown once. */
export interface Flash {
  kind: 'success' | 'error';
  text: string;
}
let flashed: Flash | undefined;
export function flash(text: string, kind: Flash['kind'] = 'success'): void {
  flashed = { kind, text };
}
export function takeFlash(): Flash | undefined {
  const message = flashed;
  flashed = undefined;
  return message;
}
