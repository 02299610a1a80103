/** The shapes the dashboard reads (spec api-v1 section 2, docs/people.md). */
export type Role = 'owner' | 'admin' | 'member';
export type Language = 'en' | 'nl';

export interface Me {
  person: { id: string; email: string; name: string; language: string; hasPassword: boolean };
  workspace: { id: string; name: string; plan: string };
  workspaces: { id: string; name: string; role: Role }[];
  role: Role;
  agentIds: string[] | null;
  csrfToken: string;
}

/** The id of the page's JSON element holding GET /app/api/me's data for a signed-in person (src/modules/dashboard/routes.ts). */
export const ME_ELEMENT_ID = 'parley-me';

export type UseCase = 'general' | 'support' | 'sales' | 'docs';
export const USE_CASES: UseCase[] = ['general', 'support', 'sales', 'docs'];

export interface Agent {
  id: string;
  name: string;
  description: string;
  useCase: string | null;
  language: string;
  status: 'active' | 'paused';
  lastTrainedAt: string | null;
  createdAt: string;
  updatedAt: string;
  [field: string]: unknown;
}

export interface Source {
  id: string;
  type: 'website' | 'file' | 'text' | 'qa';
  name: string;
  url: string | null;
  status: 'pending' | 'ready' | 'failed';
  error: string | null;
  turnedAway: string | null;
  sizeBytes: number;
  chunkCount: number;
  createdAt: string;
  processedAt: string | null;
}

export interface Advice {
  recommendation: 'recommended' | 'optional' | 'not_needed';
  reason: string;
}

export interface Preset {
  useCase: UseCase;
  purpose: string;
  instructions: string;
  welcomeMessage: string;
  features: { booking: Advice; visitorFiles: Advice };
  sources: { type: Source['type']; what: string; why: string }[];
  testQuestions: string[];
  checks: { check: string; passWhen: string }[];
}

export interface SetupGuide {
  presets: Preset[];
  plan?: { id: string; agents: { count: number; limit: number | null; left: number | null } };
}
