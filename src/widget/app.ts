/**
 * The widget itself (loaded by the loader when needed): the chat panel, streamed
 * answers with their sources, feedback, the lead form, actions, the greeting and
 * the nudge, and the conversation kept in the site's storage across page loads.
 * Plain DOM in the loader's shadow root: nothing of the host page reaches in.
 */
import { FORM_TEXTS } from '../modules/leads/texts.ts';
import css from './widget.css';
import { link, renderMarkdown, safeLink } from './markdown.ts';
import { asksForPerson } from './handoff.ts';
import { isWeakAnswer, type Controller, type Mount, type OpenedBy } from './shared.ts';
import { proofHeader } from './proof-of-work.ts';
import { readParts } from './stream.ts';
import { WIDGET_TEXTS } from './texts.ts';

interface Message {
  role: 'user' | 'agent';
  text: string;
  id?: string;
  sources?: Source[];
  feedback?: 1 | -1 | null;
  files?: string[];
}

interface Saved {
  conversationId?: string;
  token?: string;
  messages: Message[];
  questions: number;
  lead?: 'sent' | 'declined';
  /** What the visitor gave in the lead form: the ticket form starts from it. */
  contact?: { email?: string; name?: string };
  proactiveShown?: boolean;
}

/** A source of an answer: its address when it is a website or file source. Storage from before addresses holds names only. */
type Source = { name: string; url: string | null } | string;

type Moment = 'before' | 'questions' | 'weak_answer' | 'button';

const MOBILE_WIDTH = 640;

export function mountWidget(m: Mount): Controller {
  const { settings, root, base, language } = m;
  const t = WIDGET_TEXTS[language];
  const translation = settings.branding.translations[language] ?? {};
  const storageKey = `parley:${settings.id}`;
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(css);
  root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];

  let saved: Saved = load();
  let openedBy: OpenedBy = 'launcher';
  let busy = false;
  let restoreOverflow: string | null = null;
  let bubble: HTMLElement | undefined;


  // ---------------------------------------------------------------- the panel
  const title = el('h2', { id: 'parley-title', textContent: settings.branding.title || settings.name });
  const newChat = el('button', { type: 'button', textContent: t.newChat });
  const closeButton = el('button', { type: 'button', textContent: '✕' });
  closeButton.setAttribute('aria-label', t.close);
  const header = el('header', {}, title, newChat);
  if (settings.branding.logoUrl) header.prepend(el('img', { src: settings.branding.logoUrl, alt: '' }));
  if (m.mode === 'widget') header.append(closeButton);

  const log = el('div', { className: 'log' });
  log.setAttribute('role', 'log');
  log.setAttribute('aria-live', 'polite');
  const status = el('p', { className: 'sr' });
  status.setAttribute('role', 'status');

  const actions = el('div', { className: 'actions' });
  for (const action of settings.actions) {
    const href = safeLink(action.kind === 'email' ? `mailto:${action.url.replace(/^mailto:/, '')}` : action.kind === 'phone' ? `tel:${action.url.replace(/^tel:/, '')}` : action.url);
    if (href) actions.append(link(href, action.label));
  }
  const booking = settings.calendlyUrl ? safeLink(settings.calendlyUrl) : null;
  if (booking) actions.append(link(booking, t.book));
  const leadButton = el('button', { type: 'button', textContent: t.leaveDetails });
  if (settings.leadCapture.enabled) actions.append(leadButton);
  const personButton = el('button', { type: 'button', textContent: t.person });
  if (settings.tickets.enabled) actions.append(personButton);

  const input = el('textarea', { rows: 1, placeholder: translation.messagePlaceholder || settings.branding.messagePlaceholder || t.placeholder, maxLength: 4000 });
  input.setAttribute('aria-label', input.placeholder);
  const send = el('button', { type: 'submit', className: 'primary', textContent: t.send });
  const compose = el('form', { className: 'compose' }, input, send);
  // Files wait here until the next question carries them (docs/visitors.md, "Visitor files").
  let files: Array<{ id: string; name: string }> = [];
  let fileToken: string | undefined;
  const fileList = el('div', { className: 'files' });
  const fileInput = el('input', { type: 'file', className: 'sr', tabIndex: -1, accept: '.pdf,.docx,.txt,.md,image/png,image/jpeg,image/webp,image/gif' });
  const attach = el('button', { type: 'button', className: 'attach', textContent: '+' });
  attach.setAttribute('aria-label', t.attach);
  attach.title = t.attach;
  if (settings.attachmentsEnabled) compose.prepend(attach, fileInput);
  attach.addEventListener('click', () => fileInput.click());
  fileInput.addEventListener('change', () => void upload());
  // A form follows the message that brought it, in the same scroll as the conversation, so the two are seen together.
  const leadSlot = el('div');
  const scroller = el('div', { className: 'scroll' }, log, leadSlot);

  const panel = el('div', { className: 'panel', hidden: true }, header, scroller, status, actions, fileList, compose);
  panel.setAttribute('role', 'dialog');
  panel.setAttribute('aria-labelledby', title.id);
  if (!settings.branding.removeBranding) panel.append(el('p', { className: 'powered', textContent: t.poweredBy }));
  root.append(panel);
  if (m.launcher) m.launcher.setAttribute('aria-controls', 'parley-panel');
  panel.id = 'parley-panel';

  // ---------------------------------------------------------------- events
  compose.addEventListener('submit', (event) => {
    event.preventDefault();
    void ask(input.value);
  });
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey) {
      event.preventDefault();
      void ask(input.value);
    }
  });
  root.addEventListener('keydown', (event) => {
    if ((event as KeyboardEvent).key === 'Escape' && isOpen() && m.mode === 'widget') close();
  });
  closeButton.addEventListener('click', () => close());
  newChat.addEventListener('click', () => {
    saved = { messages: [], questions: 0, lead: saved.lead, contact: saved.contact, proactiveShown: saved.proactiveShown };
    store();
    drawAll();
    input.focus();
  });
  leadButton.addEventListener('click', () => showLeadForm('button'));
  personButton.addEventListener('click', () => showTicketForm());

  drawAll();
  if (m.mode === 'page') open('launcher');
  else scheduleProactive();

  return { open, close, toggle: () => (isOpen() ? close() : open('launcher')), isOpen };

  // ---------------------------------------------------------------- open and close
  function isOpen(): boolean {
    return !panel.hidden;
  }

  function open(by: OpenedBy = 'launcher'): void {
    if (isOpen()) return;
    openedBy = by;
    bubble?.remove();
    panel.hidden = false;
    m.launcher?.setAttribute('aria-expanded', 'true');
    if (m.mode === 'widget' && innerWidth < MOBILE_WIDTH) {
      // Nothing behind the full-screen panel scrolls.
      restoreOverflow = document.documentElement.style.overflow;
      document.documentElement.style.overflow = 'hidden';
    }
    post('events', { type: 'opened', openedBy: by, page: pageOf() });
    toBottom();
    if (settings.leadCapture.enabled && settings.leadCapture.timing === 'before_chat' && !saved.lead && saved.messages.length === 0) showLeadForm('before');
    else input.focus();
  }

  function close(): void {
    if (!isOpen()) return;
    panel.hidden = true;
    m.launcher?.setAttribute('aria-expanded', 'false');
    if (restoreOverflow !== null) document.documentElement.style.overflow = restoreOverflow;
    restoreOverflow = null;
    m.launcher?.focus();
  }

  // ---------------------------------------------------------------- messages
  function drawAll(): void {
    log.replaceChildren();
    const welcome = translation.welcomeMessage || settings.welcomeMessage || t.welcome;
    log.append(bubbleOf({ role: 'agent', text: welcome }));
    for (const message of saved.messages) log.append(bubbleOf(message));
  }

  function bubbleOf(message: Message): HTMLElement {
    const node = el('div', { className: `msg ${message.role}` });
    const body = el('div');
    if (message.role === 'agent') renderMarkdown(body, message.text);
    else body.textContent = message.text;
    node.append(body);
    if (message.files?.length) node.append(el('div', { className: 'sources', textContent: message.files.join(', ') }));
    if (message.sources?.length) {
      const list = el('ul');
      for (const source of message.sources) list.append(el('li', {}, sourceOf(source)));
      node.append(el('div', { className: 'sources' }, el('span', { textContent: `${t.sources}:` }), list));
    }
    if (message.id) node.append(ratingOf(message));
    return node;
  }

  function ratingOf(message: Message): HTMLElement {
    // One call at a time, in the order pressed: the last thumb pressed is the one recorded.
    let sending: Promise<unknown> = Promise.resolve();
    const buttons = ([[1, t.helpful], [-1, t.notHelpful]] as const).map(([value, label]) => {
      const button = el('button', { type: 'button' }, thumb(value === -1));
      button.setAttribute('aria-label', label);
      button.setAttribute('aria-pressed', String(message.feedback === value));
      button.addEventListener('click', () => {
        message.feedback = message.feedback === value ? null : value;
        store();
        for (const [i, b] of buttons.entries()) b.setAttribute('aria-pressed', String(message.feedback === (i === 0 ? 1 : -1)));
        const chosen = message.feedback;
        sending = sending.then(() => post('feedback', { messageId: message.id, value: chosen }));
      });
      return button;
    });
    return el('div', { className: 'rate' }, ...buttons);
  }

  async function ask(text: string): Promise<void> {
    const message = text.trim();
    if (!message || busy) return;
    if (settings.tickets.enabled && asksForPerson(message)) return askForPerson(message);
    busy = true;
    send.disabled = true;
    input.value = '';
    const sending = files;
    const question: Message = { role: 'user', text: message, ...(sending.length ? { files: sending.map((f) => f.name) } : {}) };
    saved.messages.push(question);
    log.append(bubbleOf(question));
    const answer: Message = { role: 'agent', text: '' };
    const node = bubbleOf(answer);
    node.setAttribute('aria-busy', 'true');
    log.append(node);
    status.textContent = t.busy;
    let confidence = 100;
    try {
      const reply = await fetch(`${base}/visitor/v1/agents/${settings.id}/chat`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...tokenHeader(saved.conversationId ? saved.token : (fileToken ?? saved.token)),
          ...(await proofHeader(base, settings)),
        },
        body: JSON.stringify({
          message,
          ...(sending.length ? { attachments: sending.map((f) => f.id) } : {}),
          stream: true,
          language,
          page: pageOf(),
          channel: m.mode === 'page' ? 'iframe' : 'widget',
          ...(saved.conversationId ? { conversationId: saved.conversationId } : { openedBy }),
        }),
      });
      if (!reply.ok || !reply.body) throw new Error(String(reply.status));
      const token = reply.headers.get('x-visitor-token');
      if (token) saved.token = token;
      files = [];
      fileToken = undefined;
      fileList.replaceChildren();
      for await (const part of readParts(reply.body)) {
        if (part.type === 'start' && part.messageMetadata) {
          const meta = part.messageMetadata as { conversationId: string; messageId: string; confidence: number; sources: Array<{ name: string; url?: string | null }> };
          saved.conversationId = meta.conversationId;
          answer.id = meta.messageId;
          answer.sources = meta.sources.map((s) => ({ name: s.name, url: s.url ?? null }));
          confidence = meta.confidence;
        } else if (part.type === 'text-delta' && part.delta) {
          answer.text += part.delta;
          renderMarkdown(node.firstChild as HTMLElement, answer.text);
          toBottom();
        } else if (part.type === 'error') throw new Error(part.errorText);
      }
      if (!answer.text) throw new Error('empty');
      saved.messages.push(answer);
      saved.questions += 1;
      node.replaceWith(bubbleOf(answer));
      status.textContent = '';
    } catch {
      node.remove();
      const failure = el('div', { className: 'msg agent', textContent: t.error });
      failure.setAttribute('role', 'alert');
      log.append(failure);
      status.textContent = '';
    } finally {
      busy = false;
      send.disabled = false;
      store();
      toBottom();
    }
    if (!answer.id) return;
    const weak = isWeakAnswer(confidence, answer.sources?.length ?? 0);
    const lead = settings.leadCapture;
    if (lead.enabled && !saved.lead && lead.timing === 'during_chat') {
      if (lead.afterWeakAnswer && weak) return showLeadForm('weak_answer');
      if (lead.afterQuestions > 0 && saved.questions >= lead.afterQuestions) return showLeadForm('questions');
    }
    // The agent could not help: a person can, by ticket.
    if (weak && settings.tickets.enabled) showTicketForm(message);
  }

  /** The visitor asked for a person in words: the ticket form, not the agent, answers (with their last question, if any). */
  function askForPerson(message: string): void {
    input.value = '';
    const request: Message = { role: 'user', text: message };
    const earlier = saved.messages.filter((m) => m.role === 'user' && !asksForPerson(m.text)).at(-1);
    saved.messages.push(request);
    store();
    log.append(bubbleOf(request));
    showTicketForm(earlier?.text ?? '');
  }

  // ---------------------------------------------------------------- forms in the conversation
  function toBottom(): void {
    scroller.scrollTop = scroller.scrollHeight;
  }

  /**
   * Shows a form below the last message: while it is open it is the one thing to do (the message box and
   * the actions wait), and the message it follows stays in view above it.
   */
  function openForm(form: HTMLFormElement, first: HTMLElement): void {
    const anchor = log.lastElementChild as HTMLElement;
    leadSlot.replaceChildren(form);
    compose.hidden = actions.hidden = true;
    first.focus({ preventScroll: true });
    // As far down as the form goes, but never past the top of the message it follows.
    const top = anchor.getBoundingClientRect().top - scroller.getBoundingClientRect().top + scroller.scrollTop - 14;
    scroller.scrollTop = Math.min(top, scroller.scrollHeight - scroller.clientHeight);
  }

  /** Back to the chat, with the form's confirmation (if any) in view as the conversation's last message. */
  function closeForm(confirmation: string | null): void {
    leadSlot.replaceChildren();
    compose.hidden = actions.hidden = false;
    leadButton.hidden = saved.lead === 'sent';
    if (confirmation) log.append(el('div', { className: 'msg agent', textContent: confirmation }));
    toBottom();
    input.focus({ preventScroll: true });
  }

  // ---------------------------------------------------------------- the lead form
  function showLeadForm(moment: Moment): void {
    const lead = settings.leadCapture;
    const std = FORM_TEXTS[language];
    const form = el('form', { className: 'lead' });
    form.setAttribute('aria-label', t.leaveDetails);
    form.append(el('p', { textContent: lead.intro || std.intro }));
    const inputs: Record<string, HTMLInputElement> = {};
    for (const field of lead.fields) {
      const type = field.name === 'email' ? 'email' : field.name === 'phone' ? 'tel' : 'text';
      const box = el('input', { type, name: field.name, required: field.required, autocomplete: field.name === 'company' ? 'organization' : field.name === 'phone' ? 'tel' : field.name });
      inputs[field.name] = box;
      form.append(el('label', {}, `${t[field.name]}${field.required ? ' *' : ''}`, box));
    }
    const marketing = el('input', { type: 'checkbox', name: 'marketing' });
    if (lead.marketing.enabled) form.append(el('label', { className: 'check' }, marketing, lead.marketing.label || std.marketingLabel));
    const consent = el('p', { textContent: `${std.consent} ` });
    const privacy = lead.privacyUrl ? safeLink(lead.privacyUrl) : null;
    if (privacy) consent.append(link(privacy, t.privacy));
    form.append(consent);
    const error = el('p', { className: 'error' });
    error.setAttribute('role', 'alert');
    const submit = el('button', { type: 'submit', className: 'primary', textContent: lead.button || std.button });
    const row = el('div', { className: 'row' }, submit);
    if (lead.skippable) {
      const skip = el('button', { type: 'button', className: 'secondary', textContent: t.skip });
      skip.addEventListener('click', () => {
        saved.lead = 'declined';
        store();
        post('events', { type: 'lead_form_declined', page: pageOf() });
        closeForm(null);
      });
      row.append(skip);
    } else if (moment !== 'before') {
      // Not skippable: no decline is recorded and the form comes again, but the chat is not held up by it.
      const back = el('button', { type: 'button', className: 'secondary', textContent: t.back });
      back.addEventListener('click', () => closeForm(null));
      row.append(back);
    }
    form.append(error, row);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const body: Record<string, unknown> = { moment, marketing: marketing.checked, language, page: pageOf() };
      for (const [name, box] of Object.entries(inputs)) body[name] = box.value.trim() || null;
      if (saved.conversationId) body.conversationId = saved.conversationId;
      void post('leads', body).then((reply) => {
        if (reply?.ok) {
          saved.lead = 'sent';
          saved.contact = { email: inputs.email?.value.trim(), name: inputs.name?.value.trim() };
          store();
          closeForm(lead.thanks || std.thanks);
        } else error.textContent = t.error;
      });
    });
    openForm(form, form.querySelector('input') ?? submit);
  }

  // ---------------------------------------------------------------- the ticket form
  function showTicketForm(question = ''): void {
    const form = el('form', { className: 'lead' });
    form.setAttribute('aria-label', t.person);
    const identity = m.identity();
    // What the visitor gave in the lead form is not asked again.
    const email = el('input', { type: 'email', name: 'email', required: true, autocomplete: 'email', value: saved.contact?.email ?? '' });
    const name = el('input', { type: 'text', name: 'name', autocomplete: 'name', value: saved.contact?.name ?? '' });
    const text = el('textarea', { name: 'question', required: true, maxLength: 4000, rows: 3, value: question });
    // Why the form is here, first: a person answers, and when.
    const note = el('p', { textContent: `${settings.tickets.answerTime || t.answerTime} ` });
    const privacy = settings.tickets.privacyUrl ? safeLink(settings.tickets.privacyUrl) : null;
    if (privacy) note.append(link(privacy, t.privacy));
    form.append(el('p', { className: 'title', textContent: t.person }), note);
    // A signed-in visitor does not type an address: the site vouched for it.
    if (!identity) form.append(el('label', {}, `${t.email} *`, email));
    form.append(el('label', {}, t.name, name), el('label', {}, `${t.question} *`, text));
    const error = el('p');
    error.setAttribute('role', 'alert');
    const cancel = el('button', { type: 'button', className: 'secondary', textContent: t.back });
    cancel.addEventListener('click', () => closeForm(null));
    const submit = el('button', { type: 'submit', className: 'primary', textContent: t.send });
    form.append(error, el('div', { className: 'row' }, submit, cancel));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const body: Record<string, unknown> = { email: identity?.email ?? email.value.trim(), question: text.value, language, page: pageOf() };
      if (name.value.trim()) body.name = name.value.trim();
      if (identity) body.identity = identity;
      if (saved.conversationId) body.conversationId = saved.conversationId;
      void post('tickets', body).then(async (reply) => {
        if (!reply?.ok) return void (error.textContent = t.error);
        const { data } = (await reply.json()) as { data: { number: number } };
        closeForm(t.ticketSent.replace('{n}', String(data.number)));
      });
    });
    // The first required box still empty, else the button.
    openForm(form, [email, text].find((box) => box.parentElement && !box.value) ?? submit);
  }

  // ---------------------------------------------------------------- greeting and nudge

  function scheduleProactive(): void {
    const p = settings.proactive;
    if (saved.proactiveShown || saved.messages.length > 0) return;
    if (!p.mobile && innerWidth < MOBILE_WIDTH) return;
    if (!pathMatches(p.pages, p.paths, new URL(pageOf().url).pathname)) return;
    const greetingText = p.greeting.text || translation.welcomeMessage || settings.welcomeMessage || t.welcome;
    if (p.greeting.enabled && greetingText) {
      setTimeout(() => {
        if (isOpen() || saved.proactiveShown) return;
        saved.proactiveShown = true;
        store();
        const text = el('button', { type: 'button', className: 'text', textContent: greetingText });
        text.addEventListener('click', () => open('greeting'));
        const dismiss = el('button', { type: 'button', textContent: '✕' });
        dismiss.setAttribute('aria-label', t.close);
        dismiss.addEventListener('click', () => bubble?.remove());
        bubble = el('div', { className: 'bubble' }, text, dismiss);
        bubble.setAttribute('role', 'status');
        root.append(bubble);
      }, p.greeting.delaySeconds * 1000);
    }
    if (p.nudge.enabled) {
      setTimeout(() => {
        if (isOpen() || saved.messages.length > 0) return;
        saved.proactiveShown = true;
        store();
        if (p.nudge.text) log.append(bubbleOf({ role: 'agent', text: p.nudge.text }));
        open('nudge');
      }, p.nudge.afterSeconds * 1000);
    }
  }

  // ---------------------------------------------------------------- files
  async function upload(): Promise<void> {
    const file = fileInput.files?.[0];
    fileInput.value = '';
    if (!file) return;
    const form = new FormData();
    form.append('file', file);
    if (saved.conversationId) form.append('conversationId', saved.conversationId);
    const token = saved.conversationId ? saved.token : (fileToken ?? saved.token);
    const reply = await fetch(`${base}/visitor/v1/agents/${settings.id}/files`, { method: 'POST', headers: tokenHeader(token), body: form }).catch(() => undefined);
    if (!reply?.ok) {
      const failure = el('div', { className: 'msg agent', textContent: t.error });
      failure.setAttribute('role', 'alert');
      return void log.append(failure);
    }
    const { data } = (await reply.json()) as { data: { id: string; fileName: string; visitorToken?: string } };
    if (data.visitorToken) fileToken = data.visitorToken;
    const entry = { id: data.id, name: data.fileName };
    files.push(entry);
    const remove = el('button', { type: 'button', textContent: '✕' });
    remove.setAttribute('aria-label', `${t.removeFile} ${entry.name}`);
    const chip = el('span', { className: 'file' }, entry.name, remove);
    remove.addEventListener('click', () => {
      files = files.filter((f) => f !== entry);
      chip.remove();
      input.focus();
    });
    fileList.append(chip);
    input.focus();
  }

  // ---------------------------------------------------------------- storage and calls
  function load(): Saved {
    try {
      const raw = localStorage.getItem(storageKey);
      if (raw) return JSON.parse(raw) as Saved;
    } catch {
      // storage blocked or damaged: a fresh conversation
    }
    return { messages: [], questions: 0 };
  }

  function store(): void {
    try {
      localStorage.setItem(storageKey, JSON.stringify(saved));
    } catch {
      // storage blocked: the conversation lasts as long as the page
    }
  }

  function pageOf(): { url: string } {
    return { url: m.page() };
  }

  async function post(path: string, body: Record<string, unknown>): Promise<Response | undefined> {
    try {
      return await fetch(`${base}/visitor/v1/agents/${settings.id}/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...tokenHeader(saved.token) },
        body: JSON.stringify(body),
      });
    } catch {
      return undefined;
    }
  }
}

/** A source's name, as a link when its address is https (a website or a file the agent read). */
function sourceOf(source: Source): Node {
  const { name, url } = typeof source === 'string' ? { name: source, url: null } : source;
  if (url && /^https:\/\//i.test(url)) {
    const href = safeLink(url);
    if (href) return link(href, name);
  }
  return document.createTextNode(name);
}

function tokenHeader(token: string | undefined): Record<string, string> {
  return token ? { 'x-visitor-token': token } : {};
}

/** A thumb drawn as SVG: emoji fonts are missing on many systems. */
function thumb(down: boolean): SVGElement {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  if (down) svg.setAttribute('transform', 'rotate(180)');
  const path = document.createElementNS(ns, 'path');
  path.setAttribute('d', 'M2 21h4V9H2v12zm20-11a2 2 0 0 0-2-2h-6.3l1-4.6v-.3c0-.4-.2-.8-.4-1.1L13.2 1 6.6 7.6C6.2 8 6 8.5 6 9v10a2 2 0 0 0 2 2h9c.8 0 1.5-.5 1.8-1.2l3-7.1.2-.7v-2z');
  path.setAttribute('fill', 'currentColor');
  svg.append(path);
  return svg;
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Record<string, unknown> = {}, ...children: Array<Node | string>): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  Object.assign(node, props);
  node.append(...children);
  return node;
}

/** Spec 2.5 proactive.pages: every page, only the paths, or all but them; a trailing * matches every path below. */
export function pathMatches(pages: 'all' | 'only' | 'except', paths: string[], path: string): boolean {
  if (pages === 'all') return true;
  const hit = paths.some((p) => (p.endsWith('*') ? path.startsWith(p.slice(0, -1)) : path === p || path === `${p}/`));
  return pages === 'only' ? hit : !hit;
}
