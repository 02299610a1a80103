import { useState } from 'preact/hooks';
import type { Loaded } from '../../data.ts';
import { t } from '../../i18n/index.ts';
import { USE_CASES, type Preset, type SetupGuide, type UseCase } from '../../types.ts';
import { Badge, Button, ErrorNotice } from '../../components/index.ts';

/**
 * The first run, for a workspace without agents: the setup guide's presets (GET /setup-guide,
 * spec 4.4) per use case (purpose, recommended features with their reasons, sources to gather,
 * the ten test questions), then the "New agent" dialog with that use case chosen.
 */
export function FirstRun({ guide, onStart }: { guide: Loaded<SetupGuide>; onStart: (useCase: UseCase) => void }) {
  const [useCase, setUseCase] = useState<UseCase>('general');
  const preset = guide.data?.presets.find((p) => p.useCase === useCase);
  return (
    <section class="card" aria-labelledby="first-run-title">
      <h2 id="first-run-title">{t('firstRun.title')}</h2>
      <p>{t('firstRun.intro')}</p>
      {guide.error && <ErrorNotice error={guide.error} />}
      <fieldset class="choices">
        <legend>{t('firstRun.choose')}</legend>
        {USE_CASES.map((value) => (
          <label class="choice" key={value}>
            <input type="radio" name="first-run-use-case" value={value} checked={value === useCase} onChange={() => setUseCase(value)} />
            <span>{t(`useCase.${value}`)}</span>
          </label>
        ))}
      </fieldset>
      {preset && <PresetDetails preset={preset} />}
      <div class="form-actions">
        <Button kind="primary" onClick={() => onStart(useCase)}>
          {t('firstRun.start')}
        </Button>
      </div>
    </section>
  );
}

export function PresetDetails({ preset }: { preset: Preset }) {
  return (
    <div class="preset" lang="en">
      <h3>{t('firstRun.purpose')}</h3>
      <p>{preset.purpose}</p>
      <h3>{t('firstRun.features')}</h3>
      <ul>
        {(['booking', 'visitorFiles'] as const).map((feature) => (
          <li key={feature}>
            <strong lang={undefined}>{t(`feature.${feature}`)}</strong>{' '}
            <Badge tone={preset.features[feature].recommendation === 'recommended' ? 'good' : 'neutral'}>{t(`advice.${preset.features[feature].recommendation}`)}</Badge>: {preset.features[feature].reason}
          </li>
        ))}
      </ul>
      <SourcesToGather preset={preset} />
      <h3>{t('firstRun.questions')}</h3>
      <ol>
        {preset.testQuestions.map((question) => (
          <li key={question}>{question}</li>
        ))}
      </ol>
      <p class="cell-note">{t('firstRun.questionsNote')}</p>
    </div>
  );
}

export function SourcesToGather({ preset, heading = t('firstRun.sources') }: { preset: Preset; heading?: string }) {
  return (
    <>
      {heading && <h3>{heading}</h3>}
      <ul>
        {preset.sources.map((source) => (
          <li key={source.what}>
            <strong>{source.what}</strong> ({t(`type.${source.type}`)}): {source.why}
          </li>
        ))}
      </ul>
    </>
  );
}
