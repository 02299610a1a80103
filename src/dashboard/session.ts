import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Me } from './types.ts';

export interface Session {
  me: Me;
  /** After a change to the person or workspace (language, workspace switched): me again; settles once it is shown (a new language's texts loaded). */
  refresh: (me: Me) => Promise<void>;
  signOut: () => Promise<void>;
}

export const SessionContext = createContext<Session | undefined>(undefined);

export function useSession(): Session {
  return useContext(SessionContext)!;
}
