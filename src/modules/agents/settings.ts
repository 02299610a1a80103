/**
 * An agent's settings: the defaults, the PATCH merge (spec 4.5 rules 1 to 3)
 * and the checks on the merged result. Pure functions, no database.
 */
import type { Agent, Language } from './schemas.ts';

/** Everything of the agent object except identity, status and timestamps: stored whole as jsonb. */
export type AgentSettings = Omit<Agent, 'id' | 'status' | 'lastTrainedAt' | 'createdAt' | 'updatedAt'>;

export const DEFAULT_TEMPERATURE = 0.3;
export const DEFAULT_RETRIEVAL = { topK: 5, minSimilarity: 0.3 };

export function defaultSettings(input: { name: string; useCase: Agent['useCase']; language: Language; model: string }): AgentSettings {
  return {
    name: input.name,
    description: '',
    useCase: input.useCase,
    instructions: '',
    welcomeMessage: '',
    language: input.language,
    languages: [input.language],
    model: input.model,
    temperature: DEFAULT_TEMPERATURE,
    retrieval: { ...DEFAULT_RETRIEVAL },
    allowedOrigins: [],
    calendlyUrl: null,
    attachmentsEnabled: false,
    branding: {
      color: '#2563eb',
      textColor: '#ffffff',
      position: 'right',
      title: '',
      messagePlaceholder: '',
      launcherLabel: '',
      logoUrl: null,
      iconUrl: null,
      removeBranding: false,
      translations: {},
    },
    proactive: {
      greeting: { enabled: false, text: '', delaySeconds: 5 },
      nudge: { enabled: false, text: '', afterSeconds: 30 },
      pages: 'all',
      paths: [],
      mobile: false,
    },
    leadCapture: {
      enabled: false,
      fields: [
        { name: 'name', required: false },
        { name: 'email', required: true },
      ],
      timing: 'during_chat',
      skippable: true,
      afterQuestions: 2,
      afterWeakAnswer: true,
      button: '',
      intro: '',
      thanks: '',
      privacyUrl: null,
      marketing: { enabled: false, label: '' },
    },
    tickets: { enabled: false, answerTime: '', privacyUrl: null },
    emailChannel: { enabled: false, address: null, review: true },
    actions: [],
    limits: { dailyCredits: null },
    proofOfWork: false,
  };
}

type Plain = Record<string, unknown>;

function isPlainObject(value: unknown): value is Plain {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Only what is sent changes: objects merge member by member at every depth;
 * lists, strings, numbers, booleans and null replace what was there.
 */
export function deepMerge<T>(base: T, patch: unknown): T {
  if (!isPlainObject(base) || !isPlainObject(patch)) return (patch === undefined ? base : patch) as T;
  const out: Plain = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    out[key] = isPlainObject(out[key]) && isPlainObject(value) ? deepMerge(out[key], value) : value;
  }
  return out as T;
}

/**
 * Stored settings over today's defaults: a member added to the agent object
 * after an agent was made appears with its default instead of missing.
 */
export function withDefaults(stored: Partial<AgentSettings>, fallback: AgentSettings): AgentSettings {
  return deepMerge(fallback, stored);
}

/** Rule 2: an empty text removes that version; a language left with no text (or sent as null) is dropped. */
export function pruneTranslations(translations: Record<string, unknown>): AgentSettings['branding']['translations'] {
  const out: Plain = {};
  for (const [language, texts] of Object.entries(translations)) {
    if (!isPlainObject(texts)) continue;
    const kept = Object.fromEntries(Object.entries(texts).filter(([, text]) => typeof text === 'string' && text !== ''));
    if (Object.keys(kept).length > 0) out[language] = kept;
  }
  return out as AgentSettings['branding']['translations'];
}

/** Rule 3: the main language always comes first, each language once. */
export function orderLanguages(language: Language, languages: readonly Language[]): Language[] {
  return [language, ...new Set(languages.filter((l) => l !== language))];
}
