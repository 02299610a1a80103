import { t } from '../i18n/index.ts';
import { NAVIGATION, type Section } from '../routes.ts';
import type { Role } from '../types.ts';

/** The main navigation landmark: the sections the person's role may open, the current one marked. */
export function Nav({ role, current }: { role: Role; current: Section | undefined }) {
  return (
    <nav class="nav" aria-label={t('nav.label')}>
      <ul>
        {NAVIGATION.filter((item) => !item.roles || item.roles.includes(role)).map((item) => (
          <li key={item.section}>
            <a href={item.path} aria-current={item.section === current ? 'page' : undefined}>
              {t(item.label)}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
