/** One agent's settings (issue 23): not built yet; its tab, route and frame are ready. */
import type { PageProps } from '../../routes.ts';
import { NotBuiltAgentPage } from '../not-built.tsx';

export default function Page({ params }: PageProps) {
  return <NotBuiltAgentPage agentId={params.agentId!} tab="settings" />;
}
