import type { ComponentChildren } from 'preact';

/**
 * A message in the page: info and success are announced politely (role status), an error at
 * once (role alert). The live region is always rendered, so a message added later is read out.
 */
export function Notice({ kind = 'info', children }: { kind?: 'info' | 'success' | 'error'; children?: ComponentChildren }) {
  return (
    <div class={children ? `notice notice-${kind}` : 'notice-empty'} role={kind === 'error' ? 'alert' : 'status'}>
      {children}
    </div>
  );
}
