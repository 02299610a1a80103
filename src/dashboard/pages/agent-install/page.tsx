/**
 * One agent's Install page (issue 23): both snippets of GET /agents/{id}/embed with copy
 * buttons, the allowed sites, short instructions per platform (kept consistent with
 * docs/guides/en/widget.md, which has the longer version) and identity verification for
 * sites where visitors sign in.
 */
import { useState } from 'preact/hooks';
import { get } from '../../api.ts';
import { useData } from '../../data.ts';
import { t, type MessageKey } from '../../i18n/index.ts';
import type { PageProps } from '../../routes.ts';
import type { Embed } from '../../types.ts';
import { ButtonLink, ErrorNotice, Notice } from '../../components/index.ts';
import { AgentFrame } from '../agent/frame.tsx';

const PLATFORMS = ['html', 'wordpress', 'shopify', 'wix', 'squarespace', 'webflow', 'gtm'] as const;
const STEPS: Record<(typeof PLATFORMS)[number], number> = { html: 2, wordpress: 3, shopify: 4, wix: 4, squarespace: 3, webflow: 4, gtm: 5 };
const GUIDE = 'docs/guides/en/widget.md';

export default function InstallPage({ params }: PageProps) {
  const agentId = params.agentId!;
  return <AgentFrame agentId={agentId} tab="install">{() => <Install agentId={agentId} />}</AgentFrame>;
}

function Install({ agentId }: { agentId: string }) {
  const embed = useData(() => get<Embed>(`/v1/agents/${encodeURIComponent(agentId)}/embed`), [agentId]);
  const settings = `/app/agents/${encodeURIComponent(agentId)}/settings`;
  if (embed.error) return <ErrorNotice error={embed.error} />;
  if (!embed.data) return <p>{t('app.loading')}</p>;
  const { script, iframe, allowedOrigins } = embed.data;
  return (
    <div class="install">
      <section class="card" aria-labelledby="install-script">
        <h2 id="install-script">{t('install.script')}</h2>
        <p>{t('install.scriptHint')}</p>
        <Snippet id="install-script-code" label={t('install.script')} copyLabel={t('install.copyScript')} code={script} />
      </section>

      <section class="card" aria-labelledby="install-iframe">
        <h2 id="install-iframe">{t('install.iframe')}</h2>
        <p>{t('install.iframeHint')}</p>
        <Snippet id="install-iframe-code" label={t('install.iframe')} copyLabel={t('install.copyIframe')} code={iframe} />
      </section>

      <section class="card" aria-labelledby="install-sites">
        <h2 id="install-sites">{t('install.sites')}</h2>
        {allowedOrigins.length === 0 ? (
          <Notice>{t('install.sitesNone')}</Notice>
        ) : (
          <>
            <p>{t('install.sitesSome')}</p>
            <ul class="install-sites">
              {allowedOrigins.map((origin) => (
                <li key={origin}>
                  <code>{origin}</code>
                </li>
              ))}
            </ul>
          </>
        )}
        <p class="field-hint">{t('install.sitesCheck')}</p>
        <ButtonLink href={settings}>{t('install.changeSites')}</ButtonLink>
      </section>

      <section class="card" aria-labelledby="install-platforms">
        <h2 id="install-platforms">{t('install.platforms')}</h2>
        <p>{t('install.platformsIntro')}</p>
        {PLATFORMS.map((platform) => (
          <details key={platform} class="install-platform">
            <summary>{t(`install.${platform}` as MessageKey)}</summary>
            <ol>
              {Array.from({ length: STEPS[platform] }, (_, index) => (
                <li key={index}>{t(`install.${platform}.${index + 1}` as MessageKey)}</li>
              ))}
            </ol>
          </details>
        ))}
        <p class="field-hint">{t('install.guide', { guide: GUIDE })}</p>
      </section>

      <section class="card" aria-labelledby="install-identity">
        <h2 id="install-identity">{t('install.identity')}</h2>
        <p>{t('install.identityIntro')}</p>
        <ol>
          <li>{t('install.identity.1')}</li>
          <li>{t('install.identity.2')}</li>
          <li>{t('install.identity.3')}</li>
        </ol>
        <Snippet id="install-identity-code" label={t('install.identityExample')} copyLabel={t('install.copyIdentity')} code={identityExample(script)} />
        <p class="field-hint">{t('install.identityNotes')}</p>
        <ButtonLink href={settings}>{t('install.identitySecret')}</ButtonLink>
      </section>
    </div>
  );
}

function identityExample(script: string): string {
  return `${script}
<script>
  document.addEventListener('DOMContentLoaded', () => {
    Parley.identify({ email: 'visitor@example.com', hash: '<HMAC-SHA256 of the address, made on your server>' });
  });
</script>`;
}

/** A snippet to copy: the code as text (selectable, read by screen readers) and a copy button that says when it copied. */
function Snippet({ id, label, copyLabel, code }: { id: string; label: string; copyLabel: string; code: string }) {
  const [copied, setCopied] = useState<'yes' | 'no' | undefined>();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(code);
      setCopied('yes');
    } catch {
      // No clipboard (permission refused, or not a secure context): select the text for Ctrl+C.
      const range = document.createRange();
      range.selectNodeContents(document.getElementById(id)!);
      const selection = window.getSelection();
      selection?.removeAllRanges();
      selection?.addRange(range);
      setCopied('no');
    }
  };
  return (
    <div class="snippet">
      <pre class="snippet-code" tabIndex={0} aria-label={label}>
        <code id={id}>{code}</code>
      </pre>
      <div class="snippet-actions">
        <button type="button" class="btn btn-primary" onClick={() => void copy()}>
          {copyLabel}
        </button>
        <span role="status" class="field-hint">
          {copied === 'yes' ? t('install.copied') : copied === 'no' ? t('install.selected') : ''}
        </span>
      </div>
    </div>
  );
}
