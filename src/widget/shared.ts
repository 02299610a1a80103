/** What the loader hands the widget module (src/widget/app.ts), and the public settings it read. */
import type { Language } from '../modules/agents/schemas.ts';

export interface Translation {
  welcomeMessage?: string;
  messagePlaceholder?: string;
  launcherLabel?: string;
}

export interface Action {
  id: string;
  kind: 'link' | 'email' | 'phone';
  label: string;
  url: string;
}

export interface Settings {
  id: string;
  name: string;
  language: Language;
  languages: Language[];
  welcomeMessage: string;
  branding: {
    color: string;
    textColor: string;
    position: 'right' | 'left';
    title: string;
    messagePlaceholder: string;
    launcherLabel: string;
    logoUrl: string | null;
    iconUrl: string | null;
    removeBranding: boolean;
    translations: Partial<Record<Language, Translation>>;
  };
  proactive: {
    greeting: { enabled: boolean; text: string; delaySeconds: number };
    nudge: { enabled: boolean; text: string; afterSeconds: number };
    pages: 'all' | 'only' | 'except';
    paths: string[];
    mobile: boolean;
  };
  leadCapture: {
    enabled: boolean;
    fields: Array<{ name: 'name' | 'email' | 'phone' | 'company'; required: boolean }>;
    timing: 'before_chat' | 'during_chat';
    skippable: boolean;
    afterQuestions: number;
    afterWeakAnswer: boolean;
    button: string;
    intro: string;
    thanks: string;
    privacyUrl: string | null;
    marketing: { enabled: boolean; label: string };
  };
  tickets: { enabled: boolean; answerTime: string; privacyUrl: string | null };
  attachmentsEnabled: boolean;
  actions: Action[];
  calendlyUrl: string | null;
}

export type OpenedBy = 'launcher' | 'greeting' | 'nudge';

export interface Identity {
  email: string;
  hash: string;
}

/** The shared state between the loader and the module: what the site said through the API. */
export interface Mount {
  base: string;
  settings: Settings;
  language: Language;
  /** The shadow root the widget draws in. */
  root: ShadowRoot;
  launcher: HTMLButtonElement | null;
  /** 'page': the iframe page, the chat fills its own document. */
  mode: 'widget' | 'page';
  page: () => string;
  identity: () => Identity | null;
}

export interface Controller {
  open(by?: OpenedBy): void;
  close(): void;
  toggle(): void;
  isOpen(): boolean;
}

/**
 * Our own rule (docs/widget.md, "Weak answers"): an answer below this confidence, or
 * without any source, is weak. The widget then offers the lead form (afterWeakAnswer)
 * or the ticket form; analytics counts weak answers by the same rule.
 */
export const WEAK_CONFIDENCE = 50;

export function isWeakAnswer(confidence: number, sourceCount: number): boolean {
  return confidence < WEAK_CONFIDENCE || sourceCount === 0;
}
