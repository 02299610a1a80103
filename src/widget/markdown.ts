/**
 * Answers are drawn as text nodes, never as HTML: paragraphs, **bold**, and links
 * written as [text](address) or bare, only for https, mailto and tel addresses.
 * Anything else (a <script> in a source, a javascript: link) stays visible text.
 */
const TOKEN = /\[([^\]\n]{1,300})\]\(((?:https:\/\/|mailto:|tel:)[^\s)]{1,2000})\)|(https:\/\/[^\s<>()]{1,2000}[^\s<>().,;:!?'"])|\*\*([^*\n]{1,500})\*\*/g;

export function safeLink(address: string): string | null {
  try {
    const url = new URL(address);
    return url.protocol === 'https:' || url.protocol === 'mailto:' || url.protocol === 'tel:' ? url.href : null;
  } catch {
    return null;
  }
}

export function link(href: string, label: string): HTMLAnchorElement {
  const a = document.createElement('a');
  a.href = href;
  a.textContent = label;
  a.target = '_blank';
  a.rel = 'noopener noreferrer nofollow';
  return a;
}

function inline(parent: HTMLElement, text: string): void {
  let last = 0;
  for (const match of text.matchAll(TOKEN)) {
    parent.append(text.slice(last, match.index));
    const [whole, label, address, bare, bold] = match;
    const href = safeLink(address ?? bare ?? '');
    if (bold !== undefined) {
      const strong = document.createElement('strong');
      strong.textContent = bold;
      parent.append(strong);
    } else if (href) parent.append(link(href, label ?? bare!));
    else parent.append(whole);
    last = match.index + whole.length;
  }
  parent.append(text.slice(last));
}

export function renderMarkdown(target: HTMLElement, text: string): void {
  target.replaceChildren();
  for (const paragraph of text.split(/\n{2,}/)) {
    const p = document.createElement('p');
    inline(p, paragraph);
    target.append(p);
  }
}
