import type { ComponentChildren } from 'preact';

export interface TabLink {
  href: string;
  label: string;
  current: boolean;
}

/** Links between the parts of one thing (an agent's pages): a labelled navigation with the current one marked. */
export function TabLinks({ label, links }: { label: string; links: TabLink[] }) {
  return (
    <nav class="tabs" aria-label={label}>
      <ul>
        {links.map((link) => (
          <li key={link.href}>
            <a href={link.href} aria-current={link.current ? 'page' : undefined}>
              {link.label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** A small label with a tone, for a status. */
export function Badge({ tone = 'neutral', children }: { tone?: 'neutral' | 'good' | 'busy' | 'bad'; children: ComponentChildren }) {
  return <span class={`badge badge-${tone}`}>{children}</span>;
}
