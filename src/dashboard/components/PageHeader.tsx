import type { ComponentChildren } from 'preact';

/** The page's one h1 (focused after each navigation, so screen readers hear where they are), its summary and its main actions. */
export function PageHeader({ title, children, actions }: { title: string; children?: ComponentChildren; actions?: ComponentChildren }) {
  return (
    <div class="page-header">
      <div class="page-header-text">
        <h1 tabIndex={-1}>{title}</h1>
        {children && <div class="page-header-summary">{children}</div>}
      </div>
      {actions && <div class="page-header-actions">{actions}</div>}
    </div>
  );
}
