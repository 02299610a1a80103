import type { ComponentChildren } from 'preact';

/** What a page shows when there is nothing yet: a sentence and the action that starts it. */
export function EmptyState({ title, children, action }: { title: string; children?: ComponentChildren; action?: ComponentChildren }) {
  return (
    <div class="empty">
      <p class="empty-title">{title}</p>
      {children}
      {action && <div class="empty-action">{action}</div>}
    </div>
  );
}
