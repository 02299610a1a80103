/**
 * The widget's preview beside the settings: the unsaved settings drawn by the widget's own
 * rules and texts (src/widget/app.ts and loader.ts: which welcome, placeholder, launcher label
 * and greeting win; WIDGET_TEXTS for the standard ones; readableText for the text colour on the
 * brand colour). Not the real widget: that one reads saved settings from the visitor API, and
 * its styles are injected in a way the dashboard's policy (style-src 'self') refuses; see
 * docs/dashboard.md, "Settings".
 */
import { useState } from 'preact/hooks';
import type { Language } from '../../../modules/agents/schemas.ts';
import { WIDGET_TEXTS } from '../../../widget/texts.ts';
import { readableText } from '../../../widget/colour.ts';
import { t } from '../../i18n/index.ts';
import { Select } from '../../components/index.ts';
import type { Draft } from './page.tsx';

export function WidgetPreview({ draft, name }: { draft: Draft; name: string }) {
  const languages = draft.languages.length ? draft.languages : [draft.language];
  const [chosen, setChosen] = useState<Language>(draft.language);
  const language = languages.includes(chosen) ? chosen : draft.language;
  const texts = WIDGET_TEXTS[language];
  const branding = draft.branding;
  const translation = branding.translations[language] ?? {};
  const welcome = translation.welcomeMessage || draft.welcomeMessage || texts.welcome;
  const placeholder = translation.messagePlaceholder || branding.messagePlaceholder || texts.placeholder;
  const launcherLabel = translation.launcherLabel || branding.launcherLabel;
  const greeting = draft.proactive.greeting.enabled ? draft.proactive.greeting.text || welcome : '';
  const colour = /^#[0-9a-fA-F]{6}$/.test(branding.color) ? branding.color : '#2563eb';
  const textColour = readableText(colour, /^#[0-9a-fA-F]{6}$/.test(branding.textColor) ? branding.textColor : '#ffffff');
  const brand = { background: colour, color: textColour };
  return (
    <section class="widget-preview" aria-labelledby="widget-preview-title">
      <h2 id="widget-preview-title">{t('agentSettings.preview')}</h2>
      <p class="field-hint">{t('agentSettings.previewHint')}</p>
      {languages.length > 1 && (
        <Select label={t('agentSettings.previewLanguage')} value={language} options={languages.map((code) => ({ value: code, label: t(`agentSettings.language.${code}`) }))} onChange={(value) => setChosen(value as Language)} />
      )}
      <div class={`widget-preview-stage widget-preview-${branding.position}`} lang={language}>
        <div class="widget-preview-panel">
          <div class="widget-preview-header" style={brand}>
            {branding.logoUrl && <img src={branding.logoUrl} alt="" width={28} height={28} />}
            <span class="widget-preview-title">{branding.title || name}</span>
          </div>
          <div class="widget-preview-body">
            <p class="widget-preview-welcome">{welcome}</p>
          </div>
          <div class="widget-preview-input">
            <span>{placeholder}</span>
            <span class="widget-preview-send" style={brand}>
              {texts.send}
            </span>
          </div>
          {!branding.removeBranding && <p class="widget-preview-powered">{texts.poweredBy}</p>}
        </div>
        {greeting && <p class="widget-preview-greeting">{greeting}</p>}
        <div class="widget-preview-launcher" style={brand}>
          {branding.iconUrl ? <img src={branding.iconUrl} alt="" width={24} height={24} /> : (
            <svg viewBox="0 0 24 24" width={24} height={24} aria-hidden="true">
              <path d="M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H9l-5 4v-4H4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2z" fill="currentColor" />
            </svg>
          )}
          {launcherLabel && <span>{launcherLabel}</span>}
        </div>
      </div>
    </section>
  );
}
