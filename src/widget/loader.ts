/**
 * The loader (/widget.js, at most 3 KB gzip): draws the launcher in an open shadow
 * root and loads the rest of the widget only when it is needed: on idle, or at the
 * first click or API call. Its one global name is `Parley`, the documented API.
 */
import { readableText } from './colour.ts';
import type { Controller, Identity, Mount, OpenedBy, Settings } from './shared.ts';
import { pickLanguage } from './texts.ts';

declare const WIDGET_MODULE: string;
declare const LOADER_CSS: string;

const HOST_STYLE = [
  ['display', 'block'],
  ['position', 'fixed'],
  ['visibility', 'visible'],
  ['opacity', '1'],
  ['transform', 'none'],
  ['margin', '0'],
  ['padding', '0'],
  ['z-index', '2147483000'],
  ['font', '15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif'],
  ['color', '#1f2937'],
  ['letter-spacing', 'normal'],
  ['text-transform', 'none'],
  ['width', 'auto'],
  ['height', 'auto'],
];

type Pending = { open?: OpenedBy; toggle?: boolean; close?: boolean };

(() => {
  const script = document.currentScript as HTMLScriptElement | null;
  const agent = script?.dataset.agent;
  if (!script || !agent) return;
  const base = new URL(script.src).origin;
  const mode = script.dataset.mode === 'page' ? 'page' : 'widget';
  let identity: Identity | null = null;
  let pageUrl: string | null = null;
  let controller: Controller | undefined;
  let loading: Promise<Controller | undefined> | undefined;
  let pending: Pending = {};
  let mount: Mount | undefined;

  const api = {
    open: () => run((c) => c.open('launcher'), { open: 'launcher' }),
    close: () => run((c) => c.close(), { close: true }),
    toggle: () => run((c) => c.toggle(), { toggle: true }),
    /** A signed-in visitor: the e-mail and its HMAC-SHA256 under the agent's identity secret, made by the site's server. */
    identify: (who: Identity | null) => void (identity = who && who.email && who.hash ? { email: who.email, hash: who.hash } : null),
    /** The page the visitor is on, for sites that change pages without a load (single-page apps). */
    setPage: (url: string) => void (pageUrl = url),
    isOpen: () => controller?.isOpen() ?? false,
  };
  Object.defineProperty(window, 'Parley', { value: Object.freeze(api), configurable: true });

  function run(call: (c: Controller) => void, instead: Pending) {
    if (controller) return call(controller);
    pending = instead;
    void load();
  }

  function load(): Promise<Controller | undefined> {
    loading ??= (async () => {
      if (!mount) return undefined;
      const module = (await import(base + WIDGET_MODULE)) as { mountWidget(m: Mount): Controller };
      controller = module.mountWidget(mount);
      if (pending.open || pending.toggle) controller.open(pending.open ?? 'launcher');
      return controller;
    })();
    return loading;
  }

  void (async () => {
    // Refused (an origin outside allowedOrigins, a paused agent) or unreachable: the page shows nothing.
    const reply = await fetch(`${base}/visitor/v1/agents/${encodeURIComponent(agent)}`).catch(() => undefined);
    if (!reply?.ok) return;
    const settings = ((await reply.json()) as { data: Settings }).data;
    const language = pickLanguage(navigator.languages, settings.languages, settings.language);
    const host = document.createElement('div');
    host.setAttribute('data-parley', '');
    const root = host.attachShadow({ mode: 'open' });
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(LOADER_CSS);
    root.adoptedStyleSheets = [sheet];
    // Inline and important: no rule of the host page's style sheets can hide or move the widget.
    for (const [name, value] of HOST_STYLE) host.style.setProperty(name, value, 'important');
    const { branding } = settings;
    host.style.setProperty('--pc', branding.color);
    host.style.setProperty('--pt', readableText(branding.color, branding.textColor));
    let launcher: HTMLButtonElement | null = null;
    if (mode === 'widget') {
      host.className = branding.position === 'left' ? 'left' : 'right';
      host.style.setProperty('bottom', '20px', 'important');
      host.style.setProperty(host.className, '20px', 'important');
      launcher = document.createElement('button');
      launcher.type = 'button';
      launcher.className = 'launcher';
      launcher.setAttribute('aria-expanded', 'false');
      const label = settings.branding.translations[language]?.launcherLabel || branding.launcherLabel;
      launcher.setAttribute('aria-label', label || settings.name);
      if (branding.iconUrl) {
        const icon = document.createElement('img');
        icon.src = branding.iconUrl;
        icon.alt = '';
        launcher.append(icon);
      } else {
        launcher.append(chatIcon());
      }
      if (label) {
        const text = document.createElement('span');
        text.textContent = label;
        launcher.append(text);
      }
      launcher.addEventListener('click', () => run((c) => c.toggle(), { toggle: true }));
      root.append(launcher);
    } else {
      host.className = 'page';
      host.style.setProperty('inset', '0', 'important');
    }
    mount = {
      base,
      settings,
      language,
      root,
      launcher,
      mode,
      page: () => pageUrl ?? location.href,
      identity: () => identity,
    };
    document.body.append(host);
    if (mode === 'page' || pending.open || pending.toggle) return void load();
    const idle = window.requestIdleCallback ?? ((f: () => void) => setTimeout(f, 1));
    idle(() => void load(), { timeout: 4000 });
  })();

  function chatIcon(): SVGElement {
    const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
    svg.setAttribute('viewBox', '0 0 24 24');
    svg.setAttribute('aria-hidden', 'true');
    const path = document.createElementNS('http://www.w3.org/2000/svg', 'path');
    path.setAttribute('d', 'M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H9l-5 4v-4H4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2z');
    path.setAttribute('fill', 'currentColor');
    svg.append(path);
    return svg;
  }
})();
