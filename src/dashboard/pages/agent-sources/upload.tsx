import { useRef, useState } from 'preact/hooks';
import { ApiError, csrf } from '../../api.ts';
import { formatBytes, t } from '../../i18n/index.ts';

interface Upload {
  key: number;
  name: string;
  size: number;
  loaded: number;
  state: 'sending' | 'done' | 'failed';
  message?: string;
}

/**
 * Files from the computer: dropped on the zone or chosen, several at once, each sent in a request
 * of its own to POST /app/api/agents/{id}/sources/upload (a part `file`) through XMLHttpRequest,
 * whose upload progress gives each file its bar. The API's refusal shows beside the file.
 */
export function UploadFiles({ agentId, onUploaded }: { agentId: string; onUploaded: () => void }) {
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [over, setOver] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const counter = useRef(0);
  const update = (key: number, change: Partial<Upload>) => setUploads((before) => before.map((upload) => (upload.key === key ? { ...upload, ...change } : upload)));

  const sendOne = (file: File) => {
    const key = ++counter.current;
    setUploads((before) => [...before, { key, name: file.name, size: file.size, loaded: 0, state: 'sending' }]);
    const form = new FormData();
    form.append('file', file, file.name);
    const request = new XMLHttpRequest();
    request.open('POST', `/app/api/agents/${encodeURIComponent(agentId)}/sources/upload`);
    request.setRequestHeader('x-csrf-token', csrf());
    request.setRequestHeader('accept', 'application/json');
    request.upload.onprogress = (event) => update(key, { loaded: event.lengthComputable ? event.loaded : 0 });
    request.onload = () => {
      if (request.status >= 200 && request.status < 300) {
        update(key, { state: 'done', loaded: file.size });
        onUploaded();
        return;
      }
      let message = request.statusText;
      try {
        const error = JSON.parse(request.responseText)?.error;
        message = new ApiError(request.status, error?.code, error?.message ?? message).message;
      } catch {
        // Not JSON: the status text stands.
      }
      update(key, { state: 'failed', message });
    };
    request.onerror = () => update(key, { state: 'failed', message: t('sources.uploadNetwork') });
    request.send(form);
  };
  const sendAll = (files: FileList | null | undefined) => {
    for (const file of Array.from(files ?? [])) sendOne(file);
  };

  return (
    <div class="card sources-upload">
      <div
        class={`sources-drop${over ? ' sources-drop-over' : ''}`}
        onDragOver={(event) => {
          event.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={(event) => {
          event.preventDefault();
          setOver(false);
          sendAll(event.dataTransfer?.files);
        }}
      >
        <p>{t('sources.dropHere')}</p>
        <label class="btn btn-secondary sources-choose">
          {t('sources.chooseFiles')}
          <input
            ref={input}
            type="file"
            multiple
            class="visually-hidden"
            accept=".pdf,.docx,.md,.markdown,.txt,application/pdf,text/plain,text/markdown"
            onChange={(event) => {
              sendAll((event.currentTarget as HTMLInputElement).files);
              (event.currentTarget as HTMLInputElement).value = '';
            }}
          />
        </label>
        <p class="field-hint">{t('sources.fileKinds')}</p>
      </div>
      {uploads.length > 0 && (
        <ul class="sources-uploads" aria-label={t('sources.uploads')}>
          {uploads.map((upload) => (
            <li key={upload.key}>
              <span class="sources-upload-name">{upload.name}</span>
              <progress max={upload.size || 1} value={upload.state === 'failed' ? 0 : upload.loaded} aria-label={t('sources.uploadProgress', { name: upload.name })} />
              <span class={upload.state === 'failed' ? 'sources-upload-failed' : 'cell-note'} role={upload.state === 'failed' ? 'alert' : undefined}>
                {upload.state === 'sending' && t('sources.uploading', { loaded: formatBytes(upload.loaded), size: formatBytes(upload.size) })}
                {upload.state === 'done' && t('sources.uploaded')}
                {upload.state === 'failed' && upload.message}
              </span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
