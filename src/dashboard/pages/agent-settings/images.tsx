/**
 * The logo (chat header) and icon (launcher) of the widget: chosen from the computer, shown
 * with the crop rectangle drawn over it, sent with the crop to POST /app/api/agents/{id}/
 * branding/{logo|icon} (docs/people.md, "Branding images": an SVG is drawn into a PNG, a
 * crop re-encodes into 512 KB), removed with DELETE /agents/{id}/branding/{image}. The image
 * is read as a data: address (the dashboard's policy allows data: images, not blob:).
 */
import { useState } from 'preact/hooks';
import { ApiError, send } from '../../api.ts';
import { asApiError } from '../../data.ts';
import { t } from '../../i18n/index.ts';
import type { Agent } from '../../types.ts';
import { Button, ErrorNotice } from '../../components/index.ts';

interface Chosen {
  file: File;
  dataUrl: string;
  width: number;
  height: number;
}
interface Crop {
  x: number;
  y: number;
  width: number;
  height: number;
}

export function BrandingImage({ agentId, kind, url, csrfToken, onChanged }: { agentId: string; kind: 'logo' | 'icon'; url: string | null; csrfToken: string; onChanged: (agent: Agent) => void }) {
  const [chosen, setChosen] = useState<Chosen | undefined>();
  const [crop, setCrop] = useState<Crop | undefined>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>();
  const label = t(kind === 'logo' ? 'agentSettings.logo' : 'agentSettings.icon');

  const choose = (file: File | undefined) => {
    setError(undefined);
    if (!file) return setChosen(undefined);
    const reader = new FileReader();
    reader.onload = () => {
      const dataUrl = String(reader.result);
      const image = new Image();
      image.onload = () => {
        const width = image.naturalWidth || 512;
        const height = image.naturalHeight || 512;
        setChosen({ file, dataUrl, width, height });
        // A centred square for the icon (a round launcher), the whole image for the logo.
        const side = Math.min(width, height);
        setCrop(kind === 'icon' && width !== height ? { x: Math.floor((width - side) / 2), y: Math.floor((height - side) / 2), width: side, height: side } : { x: 0, y: 0, width, height });
      };
      image.onerror = () => setChosen({ file, dataUrl: '', width: 0, height: 0 });
      image.src = dataUrl;
    };
    reader.readAsDataURL(file);
  };

  const upload = async () => {
    if (!chosen) return;
    setBusy(true);
    setError(undefined);
    try {
      const form = new FormData();
      const whole = crop && crop.x === 0 && crop.y === 0 && crop.width === chosen.width && crop.height === chosen.height;
      if (crop && !whole) for (const [name, value] of Object.entries(crop)) form.append(name, String(Math.round(value)));
      form.append('file', chosen.file);
      const response = await fetch(`/app/api/agents/${encodeURIComponent(agentId)}/branding/${kind}`, { method: 'POST', credentials: 'same-origin', headers: { accept: 'application/json', 'x-csrf-token': csrfToken }, body: form });
      const body = await response.json().catch(() => undefined);
      if (!response.ok) throw new ApiError(response.status, body?.error?.code ?? 'internal_error', body?.error?.message ?? response.statusText, body?.error?.details ?? []);
      onChanged(body.data as Agent);
      setChosen(undefined);
    } catch (caught) {
      setError(asApiError(caught));
    } finally {
      setBusy(false);
    }
  };

  const remove = async () => {
    setBusy(true);
    setError(undefined);
    try {
      onChanged(await send<Agent>('DELETE', `/v1/agents/${encodeURIComponent(agentId)}/branding/${kind}`));
    } catch (caught) {
      setError(asApiError(caught));
    } finally {
      setBusy(false);
    }
  };

  const inputId = `branding-${kind}-file`;
  return (
    <fieldset class="settings-subgroup branding-image">
      <legend>{label}</legend>
      <p class="field-hint">{t(kind === 'logo' ? 'agentSettings.logoHint' : 'agentSettings.iconHint')}</p>
      {url && !chosen && (
        <p class="branding-current">
          <img src={url} alt={t('agentSettings.currentImage', { what: label.toLowerCase() })} height={48} />
          <Button kind="quiet" busy={busy} onClick={() => void remove()}>
            {t('agentSettings.removeImage', { what: label.toLowerCase() })}
          </Button>
        </p>
      )}
      <div class="field">
        <label for={inputId}>{t('agentSettings.chooseImage', { what: label.toLowerCase() })}</label>
        <input id={inputId} type="file" accept="image/png,image/jpeg,image/gif,image/webp,image/svg+xml,.svg" onChange={(event) => choose(event.currentTarget.files?.[0])} />
      </div>
      {chosen && crop && chosen.width > 0 && (
        <>
          <div class="branding-crop-stage">
            <img src={chosen.dataUrl} alt={t('agentSettings.chosenImage', { name: chosen.file.name })} />
            <div
              class="branding-crop-box"
              aria-hidden="true"
              style={{ left: `${(crop.x / chosen.width) * 100}%`, top: `${(crop.y / chosen.height) * 100}%`, width: `${(crop.width / chosen.width) * 100}%`, height: `${(crop.height / chosen.height) * 100}%` }}
            />
          </div>
          <p class="field-hint">{t('agentSettings.cropHint', { width: chosen.width, height: chosen.height })}</p>
          <div class="settings-row branding-crop-fields">
            {(['x', 'y', 'width', 'height'] as const).map((part) => (
              <div class="field" key={part}>
                <label for={`${inputId}-${part}`}>{t(`agentSettings.crop.${part}`)}</label>
                <input
                  id={`${inputId}-${part}`}
                  type="number"
                  min={part === 'width' || part === 'height' ? 1 : 0}
                  value={crop[part]}
                  onInput={(event) => setCrop({ ...crop, [part]: event.currentTarget.valueAsNumber || 0 })}
                />
              </div>
            ))}
          </div>
        </>
      )}
      {error && <ErrorNotice error={error} />}
      {chosen && (
        <Button kind="primary" busy={busy} onClick={() => void upload()}>
          {t('agentSettings.uploadImage', { what: label.toLowerCase() })}
        </Button>
      )}
    </fieldset>
  );
}
