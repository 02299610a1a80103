/** settings: not built yet (issue 24); its place in the routes table and the navigation is ready. */
import type { PageProps } from '../../routes.ts';
import { NotBuiltPage } from '../not-built.tsx';

export default function Page(_props: PageProps) {
  return <NotBuiltPage title="nav.settings" />;
}
