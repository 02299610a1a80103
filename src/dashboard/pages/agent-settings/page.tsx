/**
 * One agent's settings (issue 23): every field of spec 2.5 in groups, saved with one PATCH
 * of what changed (spec 4.5; only what is sent changes), the API's field errors beside their
 * fields (details), and the widget's preview beside the form showing the unsaved settings.
 * Data: the agent (the frame's request) and GET /models, side by side.
 */
import type { Settings as WidgetSettings } from '../../../widget/shared.ts';
import { useEffect, useId, useMemo, useState } from 'preact/hooks';
import type { ComponentChildren } from 'preact';
import type { Language } from '../../../modules/agents/schemas.ts';
import { ApiError, call, get, send } from '../../api.ts';
import { asApiError, useData } from '../../data.ts';
import { formatNumber, t } from '../../i18n/index.ts';
import type { PageProps } from '../../routes.ts';
import type { Agent, Model } from '../../types.ts';
import { Button, ErrorNotice, Notice, Select, TextField } from '../../components/index.ts';
import { AgentFrame } from '../agent/frame.tsx';
import { WidgetPreview } from './preview.tsx';
import { BrandingImage } from './images.tsx';

const LANGUAGES: Language[] = ['en', 'nl', 'fr', 'de', 'es'];
const LEAD_FIELDS = ['name', 'email', 'phone', 'company'] as const;
const MAX_INSTRUCTIONS = 20_000;

interface Translation {
  welcomeMessage?: string;
  messagePlaceholder?: string;
  launcherLabel?: string;
}
interface ActionItem {
  id?: string;
  kind: 'link' | 'email' | 'phone';
  enabled: boolean;
  name: string;
  whenToUse: string;
  label: string;
  url: string;
}
interface Imap {
  host: string;
  port: number;
  secure: boolean;
  user: string;
  folder: string;
  moveTo: string | null;
  passwordSet?: boolean;
  password?: string;
}

/** The agent's settings as the form edits them (the agent's own shapes). */
export interface Draft {
  name: string;
  description: string;
  instructions: string;
  welcomeMessage: string;
  language: Language;
  languages: Language[];
  model: string;
  temperature: number;
  retrieval: { topK: number; minSimilarity: number };
  allowedOrigins: string[];
  calendlyUrl: string | null;
  attachmentsEnabled: boolean;
  branding: WidgetSettings['branding'];
  proactive: WidgetSettings['proactive'];
  leadCapture: {
    enabled: boolean;
    fields: { name: (typeof LEAD_FIELDS)[number]; required: boolean }[];
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
  emailChannel: { enabled: boolean; address: string | null; review: boolean; imap?: Imap | null };
  actions: ActionItem[];
  limits: { dailyCredits: number | null };
  proofOfWork: boolean;
}

const FIELDS = ['name', 'description', 'instructions', 'welcomeMessage', 'language', 'languages', 'model', 'temperature', 'retrieval', 'allowedOrigins', 'calendlyUrl', 'attachmentsEnabled', 'branding', 'proactive', 'leadCapture', 'tickets', 'emailChannel', 'actions', 'limits', 'proofOfWork'] as const;

function draftOf(agent: Agent): Draft {
  const draft = {} as Record<string, unknown>;
  for (const field of FIELDS) draft[field] = structuredClone(agent[field]);
  return draft as unknown as Draft;
}

const emptyToNull = (value: string | null | undefined) => (value && value.trim() ? value.trim() : null);

/** The PATCH body: only the fields that differ from the saved agent, in the shapes PATCH accepts. */
export function patchOf(saved: Draft, draft: Draft): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  for (const field of FIELDS) {
    if (JSON.stringify(saved[field]) === JSON.stringify(draft[field])) continue;
    if (field === 'branding') {
      const { logoUrl: _logo, iconUrl: _icon, ...rest } = draft.branding;
      patch.branding = rest;
    } else if (field === 'calendlyUrl') {
      patch.calendlyUrl = emptyToNull(draft.calendlyUrl);
    } else if (field === 'leadCapture') {
      patch.leadCapture = { ...draft.leadCapture, privacyUrl: emptyToNull(draft.leadCapture.privacyUrl) };
    } else if (field === 'tickets') {
      patch.tickets = { ...draft.tickets, privacyUrl: emptyToNull(draft.tickets.privacyUrl) };
    } else if (field === 'emailChannel') {
      const mail = draft.emailChannel;
      const next: Record<string, unknown> = { enabled: mail.enabled, address: emptyToNull(mail.address), review: mail.review };
      if (JSON.stringify(saved.emailChannel.imap ?? null) !== JSON.stringify(mail.imap ?? null)) {
        if (!mail.imap) next.imap = null;
        else {
          const { passwordSet: _set, password, ...imap } = mail.imap;
          next.imap = { ...imap, moveTo: emptyToNull(imap.moveTo), ...(password ? { password } : {}) };
        }
      }
      patch.emailChannel = next;
    } else if (field === 'actions') {
      patch.actions = draft.actions.map(({ id, ...rest }) => (id ? { id, ...rest } : rest));
    } else {
      patch[field] = draft[field];
    }
  }
  return patch;
}

export default function SettingsPage({ params, me }: PageProps) {
  const agentId = params.agentId!;
  return <AgentFrame agentId={agentId} tab="settings">{(agent) => agent.data && <Settings agent={agent.data} csrfToken={me.csrfToken} onSaved={() => void agent.reload()} />}</AgentFrame>;
}

function Settings({ agent: loaded, csrfToken, onSaved }: { agent: Agent; csrfToken: string; onSaved: () => void }) {
  const models = useData(() => call<{ data: Model[] }>('GET', '/v1/models').then((reply) => reply.data), []);
  const [saved, setSaved] = useState<Draft>(() => draftOf(loaded));
  const [draft, setDraft] = useState<Draft>(() => draftOf(loaded));
  const [originsText, setOriginsText] = useState(() => (loaded.allowedOrigins as string[]).join('\n'));
  const [pathsText, setPathsText] = useState(() => (loaded.proactive as Draft['proactive']).paths.join('\n'));
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<ApiError | undefined>();
  const [done, setDone] = useState<string | undefined>();
  const [name, setName] = useState(loaded.name);

  const current: Draft = useMemo(
    () => ({ ...draft, allowedOrigins: lines(originsText), proactive: { ...draft.proactive, paths: lines(pathsText) } }),
    [draft, originsText, pathsText],
  );
  const patch = patchOf(saved, current);
  const dirty = Object.keys(patch).length > 0;
  const set = <K extends keyof Draft>(field: K, value: Draft[K]) => setDraft((before) => ({ ...before, [field]: value }));
  const setIn = <K extends 'branding' | 'proactive' | 'leadCapture' | 'tickets' | 'emailChannel' | 'retrieval' | 'limits'>(field: K, change: Partial<Draft[K]>) =>
    setDraft((before) => ({ ...before, [field]: { ...before[field], ...change } }));
  const err = (field: string) => error?.field(field);

  const save = async () => {
    setSaving(true);
    setError(undefined);
    setDone(undefined);
    try {
      const agent = await send<Agent>('PATCH', `/v1/agents/${encodeURIComponent(loaded.id)}`, patch);
      const next = draftOf(agent);
      setSaved(next);
      setDraft(next);
      setOriginsText(next.allowedOrigins.join('\n'));
      setPathsText(next.proactive.paths.join('\n'));
      setName(agent.name);
      setDone(t('agentSettings.saved'));
      if (agent.name !== loaded.name) onSaved();
    } catch (caught) {
      setError(asApiError(caught));
    } finally {
      setSaving(false);
    }
  };

  // An image is saved at once by its own route: the saved and the unsaved settings both take its address.
  const imagesChanged = (agent: Agent) => {
    const images = { logoUrl: (agent.branding as Draft['branding']).logoUrl, iconUrl: (agent.branding as Draft['branding']).iconUrl };
    setSaved((before) => ({ ...before, branding: { ...before.branding, ...images } }));
    setDraft((before) => ({ ...before, branding: { ...before.branding, ...images } }));
  };
  const b = draft.branding;
  const p = draft.proactive;
  const l = draft.leadCapture;
  const m = draft.emailChannel;
  const otherLanguages = draft.languages.filter((code) => code !== draft.language);

  return (
    <div class="settings-layout">
      <form
        class="settings-form"
        aria-label={t('agentSettings.title')}
        onSubmit={(event) => {
          event.preventDefault();
          void save();
        }}
      >
        <Group id="general" title={t('agentSettings.general')}>
          <TextField label={t('agentSettings.name')} value={draft.name} onInput={(v) => set('name', v)} error={err('name')} />
          <TextField label={t('agentSettings.description')} hint={t('agentSettings.descriptionHint')} value={draft.description} onInput={(v) => set('description', v)} error={err('description')} multiline rows={2} optional />
          <TextField label={t('agentSettings.welcomeMessage')} hint={t('agentSettings.welcomeHint')} value={draft.welcomeMessage} onInput={(v) => set('welcomeMessage', v)} error={err('welcomeMessage')} multiline rows={2} optional />
          <PresetText useCase={loaded.useCase} pick="welcomeMessage" label={t('agentSettings.usePresetWelcome')} onUse={(text) => set('welcomeMessage', text)} />
        </Group>

        <Group id="instructions" title={t('agentSettings.instructions')}>
          <TextField
            label={t('agentSettings.instructions')}
            hint={t('agentSettings.instructionsHint', { count: formatNumber(draft.instructions.length), max: formatNumber(MAX_INSTRUCTIONS) })}
            value={draft.instructions}
            onInput={(v) => set('instructions', v)}
            error={err('instructions')}
            multiline
            rows={10}
          />
          <PresetText useCase={loaded.useCase} pick="instructions" label={t('agentSettings.usePreset')} onUse={(text) => set('instructions', text)} />
        </Group>

        <Group id="languages" title={t('agentSettings.languages')}>
          <Select
            label={t('agentSettings.language')}
            hint={t('agentSettings.languageHint')}
            value={draft.language}
            options={LANGUAGES.map((code) => ({ value: code, label: t(`agentSettings.language.${code}`) }))}
            onChange={(v) => set('language', v as Language)}
            error={err('language')}
          />
          <fieldset class="settings-checks">
            <legend>{t('agentSettings.widgetLanguages')}</legend>
            <p class="field-hint">{t('agentSettings.widgetLanguagesHint')}</p>
            {LANGUAGES.map((code) => (
              <Check
                key={code}
                label={t(`agentSettings.language.${code}`)}
                checked={code === draft.language || draft.languages.includes(code)}
                disabled={code === draft.language}
                onChange={(on) => set('languages', on ? [...draft.languages.filter((c) => c !== code), code] : draft.languages.filter((c) => c !== code))}
              />
            ))}
            <FieldError message={err('languages')} />
          </fieldset>
        </Group>

        <Group id="model" title={t('agentSettings.model')}>
          {models.error && <ErrorNotice error={models.error} />}
          <Select
            label={t('agentSettings.model')}
            hint={t('agentSettings.modelHint')}
            value={draft.model}
            options={(models.data ?? [{ id: draft.model, provider: '', creditsPerAnswer: 0, available: true }]).map((model) => ({
              value: model.id,
              label:
                model.id === draft.model && !models.data
                  ? model.id
                  : t(model.available === false ? 'agentSettings.modelNotInPlan' : 'agentSettings.modelInPlan', { id: model.id, credits: formatNumber(model.creditsPerAnswer) }),
            }))}
            onChange={(v) => set('model', v)}
            error={err('model')}
          />
          <NumberField label={t('agentSettings.temperature')} hint={t('agentSettings.temperatureHint')} value={draft.temperature} min={0} max={1} step={0.05} onChange={(v) => set('temperature', v)} error={err('temperature')} />
          <NumberField label={t('agentSettings.topK')} hint={t('agentSettings.topKHint')} value={draft.retrieval.topK} min={1} max={10} step={1} onChange={(v) => setIn('retrieval', { topK: v })} error={err('retrieval.topK')} />
          <NumberField label={t('agentSettings.minSimilarity')} hint={t('agentSettings.minSimilarityHint')} value={draft.retrieval.minSimilarity} min={0} max={1} step={0.05} onChange={(v) => setIn('retrieval', { minSimilarity: v })} error={err('retrieval.minSimilarity')} />
        </Group>

        <Group id="sites" title={t('agentSettings.allowedOrigins')}>
          <TextField label={t('agentSettings.allowedOrigins')} hint={t('agentSettings.allowedOriginsHint')} value={originsText} onInput={setOriginsText} error={err('allowedOrigins')} multiline rows={4} />
          <ul class="field-hint settings-rules">
            <li>{t('agentSettings.originsRule.origin')}</li>
            <li>{t('agentSettings.originsRule.wildcard')}</li>
            <li>{t('agentSettings.originsRule.suffix')}</li>
            <li>{t('agentSettings.originsRule.empty')}</li>
          </ul>
        </Group>

        <Group id="visitors" title={t('agentSettings.visitors')}>
          <TextField label={t('agentSettings.calendlyUrl')} hint={t('agentSettings.calendlyHint')} type="url" value={draft.calendlyUrl ?? ''} onInput={(v) => set('calendlyUrl', v)} error={err('calendlyUrl')} optional />
          <Check label={t('agentSettings.attachments')} hint={t('agentSettings.attachmentsHint')} checked={draft.attachmentsEnabled} onChange={(v) => set('attachmentsEnabled', v)} error={err('attachmentsEnabled')} />
        </Group>

        <Group id="branding" title={t('agentSettings.branding')}>
          <div class="settings-row">
            <ColourField label={t('agentSettings.color')} value={b.color} onChange={(v) => setIn('branding', { color: v })} error={err('branding.color')} />
            <ColourField label={t('agentSettings.textColor')} value={b.textColor} onChange={(v) => setIn('branding', { textColor: v })} error={err('branding.textColor')} />
          </div>
          <Select
            label={t('agentSettings.position')}
            value={b.position}
            options={[
              { value: 'right', label: t('agentSettings.position.right') },
              { value: 'left', label: t('agentSettings.position.left') },
            ]}
            onChange={(v) => setIn('branding', { position: v as 'right' | 'left' })}
          />
          <TextField label={t('agentSettings.headerTitle')} hint={t('agentSettings.headerTitleHint')} value={b.title} onInput={(v) => setIn('branding', { title: v })} error={err('branding.title')} optional />
          <TextField label={t('agentSettings.placeholder')} hint={t('agentSettings.standardHint')} value={b.messagePlaceholder} onInput={(v) => setIn('branding', { messagePlaceholder: v })} error={err('branding.messagePlaceholder')} optional />
          <TextField label={t('agentSettings.launcherLabel')} hint={t('agentSettings.launcherLabelHint')} value={b.launcherLabel} onInput={(v) => setIn('branding', { launcherLabel: v })} error={err('branding.launcherLabel')} optional />
          <Check label={t('agentSettings.removeBranding')} hint={t('agentSettings.removeBrandingHint')} checked={b.removeBranding} onChange={(v) => setIn('branding', { removeBranding: v })} error={err('branding.removeBranding')} />
          <BrandingImage agentId={loaded.id} kind="logo" url={b.logoUrl} csrfToken={csrfToken} onChanged={imagesChanged} />
          <BrandingImage agentId={loaded.id} kind="icon" url={b.iconUrl} csrfToken={csrfToken} onChanged={imagesChanged} />
        </Group>

        <Group id="translations" title={t('agentSettings.translations')}>
          <p class="field-hint">{t('agentSettings.translationsHint')}</p>
          {otherLanguages.length === 0 && <p>{t('agentSettings.translationsNone')}</p>}
          {otherLanguages.map((code) => {
            const version = b.translations[code] ?? {};
            const change = (part: Partial<Translation>) => setIn('branding', { translations: { ...b.translations, [code]: { ...version, ...part } } });
            return (
              <fieldset key={code} class="settings-subgroup" lang={code}>
                <legend>{t(`agentSettings.language.${code}`)}</legend>
                <TextField label={t('agentSettings.welcomeMessage')} value={version.welcomeMessage ?? ''} onInput={(v) => change({ welcomeMessage: v })} error={err(`branding.translations.${code}.welcomeMessage`)} optional />
                <TextField label={t('agentSettings.placeholder')} value={version.messagePlaceholder ?? ''} onInput={(v) => change({ messagePlaceholder: v })} error={err(`branding.translations.${code}.messagePlaceholder`)} optional />
                <TextField label={t('agentSettings.launcherLabel')} value={version.launcherLabel ?? ''} onInput={(v) => change({ launcherLabel: v })} error={err(`branding.translations.${code}.launcherLabel`)} optional />
              </fieldset>
            );
          })}
        </Group>

        <Group id="proactive" title={t('agentSettings.proactive')}>
          <Check label={t('agentSettings.greeting')} hint={t('agentSettings.greetingHint')} checked={p.greeting.enabled} onChange={(v) => setIn('proactive', { greeting: { ...p.greeting, enabled: v } })} />
          {p.greeting.enabled && (
            <>
              <TextField label={t('agentSettings.greetingText')} hint={t('agentSettings.greetingTextHint')} value={p.greeting.text} onInput={(v) => setIn('proactive', { greeting: { ...p.greeting, text: v } })} error={err('proactive.greeting.text')} optional />
              <NumberField label={t('agentSettings.greetingDelay')} value={p.greeting.delaySeconds} min={0} max={600} step={1} onChange={(v) => setIn('proactive', { greeting: { ...p.greeting, delaySeconds: v } })} error={err('proactive.greeting.delaySeconds')} />
            </>
          )}
          <Check label={t('agentSettings.nudge')} hint={t('agentSettings.nudgeHint')} checked={p.nudge.enabled} onChange={(v) => setIn('proactive', { nudge: { ...p.nudge, enabled: v } })} />
          {p.nudge.enabled && (
            <>
              <TextField label={t('agentSettings.nudgeText')} value={p.nudge.text} onInput={(v) => setIn('proactive', { nudge: { ...p.nudge, text: v } })} error={err('proactive.nudge.text')} optional />
              <NumberField label={t('agentSettings.nudgeAfter')} value={p.nudge.afterSeconds} min={0} max={3600} step={1} onChange={(v) => setIn('proactive', { nudge: { ...p.nudge, afterSeconds: v } })} error={err('proactive.nudge.afterSeconds')} />
            </>
          )}
          <Select
            label={t('agentSettings.pages')}
            value={p.pages}
            options={(['all', 'only', 'except'] as const).map((value) => ({ value, label: t(`agentSettings.pages.${value}`) }))}
            onChange={(v) => setIn('proactive', { pages: v as Draft['proactive']['pages'] })}
          />
          {p.pages !== 'all' && <TextField label={t('agentSettings.paths')} hint={t('agentSettings.pathsHint')} value={pathsText} onInput={setPathsText} error={err('proactive.paths')} multiline rows={3} />}
          <Check label={t('agentSettings.mobile')} checked={p.mobile} onChange={(v) => setIn('proactive', { mobile: v })} />
        </Group>

        <Group id="leads" title={t('agentSettings.leadCapture')}>
          <Check label={t('agentSettings.leadEnabled')} hint={t('agentSettings.leadEnabledHint')} checked={l.enabled} onChange={(v) => setIn('leadCapture', { enabled: v })} error={err('leadCapture.enabled')} />
          <TextField label={t('agentSettings.privacyUrl')} hint={t('agentSettings.privacyUrlHint')} type="url" value={l.privacyUrl ?? ''} onInput={(v) => setIn('leadCapture', { privacyUrl: v })} error={err('leadCapture.privacyUrl')} />
          <fieldset class="settings-checks">
            <legend>{t('agentSettings.leadFields')}</legend>
            {LEAD_FIELDS.map((field) => {
              const chosen = l.fields.find((f) => f.name === field);
              return (
                <div key={field} class="settings-lead-field">
                  <Check label={t(`agentSettings.leadField.${field}`)} checked={!!chosen} onChange={(on) => setIn('leadCapture', { fields: on ? [...l.fields, { name: field, required: false }] : l.fields.filter((f) => f.name !== field) })} />
                  {chosen && (
                    <Check
                      label={t('agentSettings.required', { field: t(`agentSettings.leadField.${field}`) })}
                      checked={chosen.required}
                      onChange={(required) => setIn('leadCapture', { fields: l.fields.map((f) => (f.name === field ? { ...f, required } : f)) })}
                    />
                  )}
                </div>
              );
            })}
            <FieldError message={err('leadCapture.fields')} />
          </fieldset>
          <Select
            label={t('agentSettings.timing')}
            value={l.timing}
            options={(['before_chat', 'during_chat'] as const).map((value) => ({ value, label: t(`agentSettings.timing.${value}`) }))}
            onChange={(v) => setIn('leadCapture', { timing: v as Draft['leadCapture']['timing'] })}
          />
          {l.timing === 'during_chat' && (
            <>
              <NumberField label={t('agentSettings.afterQuestions')} value={l.afterQuestions} min={1} max={20} step={1} onChange={(v) => setIn('leadCapture', { afterQuestions: v })} error={err('leadCapture.afterQuestions')} />
              <Check label={t('agentSettings.afterWeakAnswer')} checked={l.afterWeakAnswer} onChange={(v) => setIn('leadCapture', { afterWeakAnswer: v })} />
            </>
          )}
          <Check label={t('agentSettings.skippable')} checked={l.skippable} onChange={(v) => setIn('leadCapture', { skippable: v })} />
          <TextField label={t('agentSettings.leadIntro')} hint={t('agentSettings.standardHint')} value={l.intro} onInput={(v) => setIn('leadCapture', { intro: v })} error={err('leadCapture.intro')} optional />
          <TextField label={t('agentSettings.leadButton')} hint={t('agentSettings.standardHint')} value={l.button} onInput={(v) => setIn('leadCapture', { button: v })} error={err('leadCapture.button')} optional />
          <TextField label={t('agentSettings.leadThanks')} hint={t('agentSettings.standardHint')} value={l.thanks} onInput={(v) => setIn('leadCapture', { thanks: v })} error={err('leadCapture.thanks')} optional />
          <Check label={t('agentSettings.marketing')} checked={l.marketing.enabled} onChange={(v) => setIn('leadCapture', { marketing: { ...l.marketing, enabled: v } })} />
          {l.marketing.enabled && <TextField label={t('agentSettings.marketingLabel')} value={l.marketing.label} onInput={(v) => setIn('leadCapture', { marketing: { ...l.marketing, label: v } })} error={err('leadCapture.marketing')} />}
        </Group>

        <Group id="tickets" title={t('agentSettings.tickets')}>
          <Check label={t('agentSettings.ticketsEnabled')} hint={t('agentSettings.ticketsHint')} checked={draft.tickets.enabled} onChange={(v) => setIn('tickets', { enabled: v })} error={err('tickets.enabled')} />
          <TextField label={t('agentSettings.answerTime')} hint={t('agentSettings.answerTimeHint')} value={draft.tickets.answerTime} onInput={(v) => setIn('tickets', { answerTime: v })} error={err('tickets.answerTime')} optional />
          <TextField label={t('agentSettings.ticketsPrivacyUrl')} hint={t('agentSettings.privacyUrlHint')} type="url" value={draft.tickets.privacyUrl ?? ''} onInput={(v) => setIn('tickets', { privacyUrl: v })} error={err('tickets.privacyUrl')} />
        </Group>

        <Group id="email" title={t('agentSettings.email')}>
          <Check label={t('agentSettings.emailEnabled')} hint={t('agentSettings.emailHint')} checked={m.enabled} onChange={(v) => setIn('emailChannel', { enabled: v })} error={err('emailChannel.enabled')} />
          <TextField label={t('agentSettings.emailAddress')} type="email" value={m.address ?? ''} onInput={(v) => setIn('emailChannel', { address: v })} error={err('emailChannel.address')} />
          <Check label={t('agentSettings.review')} hint={t('agentSettings.reviewHint')} checked={m.review} onChange={(v) => setIn('emailChannel', { review: v })} />
          <Check
            label={t('agentSettings.imap')}
            hint={t('agentSettings.imapHint')}
            checked={!!m.imap}
            onChange={(on) => setIn('emailChannel', { imap: on ? (saved.emailChannel.imap ?? { host: '', port: 993, secure: true, user: '', folder: 'INBOX', moveTo: null }) : null })}
          />
          {m.imap && (
            <fieldset class="settings-subgroup">
              <legend>{t('agentSettings.imapMailbox')}</legend>
              <TextField label={t('agentSettings.imapHost')} value={m.imap.host} onInput={(v) => setIn('emailChannel', { imap: { ...m.imap!, host: v } })} error={err('emailChannel.imap.host')} />
              <NumberField label={t('agentSettings.imapPort')} value={m.imap.port} min={1} max={65535} step={1} onChange={(v) => setIn('emailChannel', { imap: { ...m.imap!, port: v } })} error={err('emailChannel.imap.port')} />
              <Check label={t('agentSettings.imapSecure')} checked={m.imap.secure} onChange={(v) => setIn('emailChannel', { imap: { ...m.imap!, secure: v } })} />
              <TextField label={t('agentSettings.imapUser')} value={m.imap.user} onInput={(v) => setIn('emailChannel', { imap: { ...m.imap!, user: v } })} error={err('emailChannel.imap.user')} autoComplete="off" />
              <TextField
                label={t('agentSettings.imapPassword')}
                hint={m.imap.passwordSet ? t('agentSettings.imapPasswordSet') : t('agentSettings.imapPasswordHint')}
                type="password"
                autoComplete="new-password"
                value={m.imap.password ?? ''}
                onInput={(v) => setIn('emailChannel', { imap: { ...m.imap!, password: v } })}
                error={err('emailChannel.imap.password') ?? err('emailChannel.imap')}
              />
              <TextField label={t('agentSettings.imapFolder')} value={m.imap.folder} onInput={(v) => setIn('emailChannel', { imap: { ...m.imap!, folder: v } })} error={err('emailChannel.imap.folder')} />
              <TextField label={t('agentSettings.imapMoveTo')} hint={t('agentSettings.imapMoveToHint')} value={m.imap.moveTo ?? ''} onInput={(v) => setIn('emailChannel', { imap: { ...m.imap!, moveTo: v } })} error={err('emailChannel.imap.moveTo')} optional />
            </fieldset>
          )}
        </Group>

        <Group id="actions" title={t('agentSettings.actions')}>
          <p class="field-hint">{t('agentSettings.actionsHint')}</p>
          {draft.actions.map((action, index) => {
            const change = (part: Partial<ActionItem>) => set('actions', draft.actions.map((a, i) => (i === index ? { ...a, ...part } : a)));
            return (
              <fieldset key={action.id ?? `new-${index}`} class="settings-subgroup">
                <legend>{action.name || t('agentSettings.actionNew')}</legend>
                <Select label={t('agentSettings.actionKind')} value={action.kind} options={(['link', 'email', 'phone'] as const).map((value) => ({ value, label: t(`agentSettings.actionKind.${value}`) }))} onChange={(v) => change({ kind: v as ActionItem['kind'] })} />
                <TextField label={t('agentSettings.actionName')} value={action.name} onInput={(v) => change({ name: v })} error={err(`actions.${index}.name`)} />
                <TextField label={t('agentSettings.actionWhen')} hint={t('agentSettings.actionWhenHint')} value={action.whenToUse} onInput={(v) => change({ whenToUse: v })} error={err(`actions.${index}.whenToUse`)} multiline rows={2} />
                <TextField label={t('agentSettings.actionLabel')} value={action.label} onInput={(v) => change({ label: v })} error={err(`actions.${index}.label`)} />
                <TextField label={t('agentSettings.actionUrl')} hint={t('agentSettings.actionUrlHint')} value={action.url} onInput={(v) => change({ url: v })} error={err(`actions.${index}.url`)} />
                <Check label={t('agentSettings.actionEnabled')} checked={action.enabled} onChange={(v) => change({ enabled: v })} />
                <Button kind="danger" onClick={() => set('actions', draft.actions.filter((_, i) => i !== index))}>
                  {t('agentSettings.actionRemove', { name: action.name || t('agentSettings.actionNew') })}
                </Button>
              </fieldset>
            );
          })}
          <FieldError message={err('actions')} />
          <Button onClick={() => set('actions', [...draft.actions, { kind: 'link', enabled: true, name: '', whenToUse: '', label: '', url: 'https://' }])}>{t('agentSettings.actionAdd')}</Button>
        </Group>

        <Group id="limits" title={t('agentSettings.limits')}>
          <TextField
            label={t('agentSettings.dailyCredits')}
            hint={t('agentSettings.dailyCreditsHint')}
            value={draft.limits.dailyCredits === null ? '' : String(draft.limits.dailyCredits)}
            onInput={(v) => setIn('limits', { dailyCredits: v.trim() === '' ? null : Number(v) })}
            error={err('limits.dailyCredits')}
            optional
          />
          <Check label={t('agentSettings.proofOfWork')} hint={t('agentSettings.proofOfWorkHint')} checked={draft.proofOfWork} onChange={(v) => set('proofOfWork', v)} />
        </Group>

        <IdentitySecret agentId={loaded.id} />

        <div class="settings-save">
          {error && <ErrorNotice error={error} />}
          <Notice kind="success">{done}</Notice>
          <p class="field-hint">{dirty ? t('agentSettings.unsaved') : t('agentSettings.allSaved')}</p>
          <Button kind="primary" type="submit" busy={saving} disabled={!dirty}>
            {t('agentSettings.save')}
          </Button>
        </div>
      </form>
      <WidgetPreview draft={current} name={name} />
    </div>
  );
}

function lines(text: string): string[] {
  return text
    .split(/[\n,]/)
    .map((line) => line.trim())
    .filter(Boolean);
}

function Group({ id, title, children }: { id: string; title: string; children: ComponentChildren }) {
  return (
    <section class="card settings-group" aria-labelledby={`settings-${id}`}>
      <h2 id={`settings-${id}`}>{title}</h2>
      {children}
    </section>
  );
}

function FieldError({ message }: { message: string | undefined }) {
  return message ? <p class="field-error">{message}</p> : null;
}

function Check({ label, hint, checked, onChange, error, disabled }: { label: string; hint?: string; checked: boolean; onChange: (value: boolean) => void; error?: string; disabled?: boolean }) {
  const id = useId();
  const described = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div class={`field settings-check${error ? ' field-invalid' : ''}`}>
      <div class="settings-check-line">
        <input type="checkbox" id={id} checked={checked} disabled={disabled} aria-invalid={error ? 'true' : undefined} aria-describedby={described} onChange={(event) => onChange(event.currentTarget.checked)} />
        <label for={id}>{label}</label>
      </div>
      {hint && (
        <p class="field-hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {error && (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

function NumberField({ label, hint, value, min, max, step, onChange, error }: { label: string; hint?: string; value: number; min: number; max: number; step: number; onChange: (value: number) => void; error?: string }) {
  const id = useId();
  const described = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div class={`field settings-number${error ? ' field-invalid' : ''}`}>
      <label for={id}>{label}</label>
      {hint && (
        <p class="field-hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      <input id={id} type="number" inputMode="decimal" value={value} min={min} max={max} step={step} aria-invalid={error ? 'true' : undefined} aria-describedby={described} onInput={(event) => onChange(event.currentTarget.valueAsNumber)} />
      {error && (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

function ColourField({ label, value, onChange, error }: { label: string; value: string; onChange: (value: string) => void; error?: string }) {
  const id = useId();
  return (
    <div class={`field settings-colour${error ? ' field-invalid' : ''}`}>
      <label for={id}>{label}</label>
      <div class="settings-colour-line">
        <input type="color" value={/^#[0-9a-fA-F]{6}$/.test(value) ? value : '#000000'} aria-label={t('agentSettings.colourPicker', { field: label })} onInput={(event) => onChange(event.currentTarget.value)} />
        <input id={id} type="text" value={value} spellcheck={false} aria-invalid={error ? 'true' : undefined} aria-describedby={error ? `${id}-error` : undefined} onInput={(event) => onChange(event.currentTarget.value)} />
      </div>
      {error && (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

/** The preset's instructions or welcome message for this use case, offered on request (its [bracketed] parts to fill in). */
function PresetText({ useCase, pick, label, onUse }: { useCase: string | null; pick: 'instructions' | 'welcomeMessage'; label: string; onUse: (text: string) => void }) {
  const [error, setError] = useState<ApiError | undefined>();
  if (!useCase) return null;
  return (
    <>
      <Button
        kind="quiet"
        onClick={async () => {
          try {
            const guide = await get<{ presets: { instructions: string; welcomeMessage: string }[] }>(`/v1/setup-guide?useCase=${encodeURIComponent(useCase)}`);
            if (guide.presets[0]) onUse(guide.presets[0][pick]);
          } catch (caught) {
            setError(asApiError(caught));
          }
        }}
      >
        {label}
      </Button>
      {error && <ErrorNotice error={error} />}
    </>
  );
}

/** The identity verification secret (docs/guides/en/widget.md): read on request (the first read makes it), or rotated. */
function IdentitySecret({ agentId }: { agentId: string }) {
  const [secret, setSecret] = useState<string | undefined>();
  const [error, setError] = useState<ApiError | undefined>();
  const [confirming, setConfirming] = useState(false);
  const path = `/v1/agents/${encodeURIComponent(agentId)}/identity-secret`;
  useEffect(() => setSecret(undefined), [agentId]);
  const run = async (method: 'GET' | 'POST') => {
    setError(undefined);
    try {
      const reply = method === 'GET' ? await get<{ secret: string }>(path) : await send<{ secret: string }>('POST', `${path}/rotate`);
      setSecret(reply.secret);
      setConfirming(false);
    } catch (caught) {
      setError(asApiError(caught));
    }
  };
  return (
    <Group id="identity" title={t('agentSettings.identity')}>
      <p class="field-hint">{t('agentSettings.identityHint')}</p>
      {secret && (
        <p>
          <code class="settings-secret">{secret}</code>
        </p>
      )}
      {error && <ErrorNotice error={error} />}
      <div class="playground-actions">
        {!secret && <Button onClick={() => void run('GET')}>{t('agentSettings.identityShow')}</Button>}
        {!confirming ? (
          <Button kind="quiet" onClick={() => setConfirming(true)}>
            {t('agentSettings.identityRotate')}
          </Button>
        ) : (
          <>
            <span class="field-hint">{t('agentSettings.identityRotateWarning')}</span>
            <Button kind="danger" onClick={() => void run('POST')}>
              {t('agentSettings.identityRotateConfirm')}
            </Button>
          </>
        )}
      </div>
    </Group>
  );
}
