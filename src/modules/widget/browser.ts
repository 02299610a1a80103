/** Browser tests of the widget: Debian's Chromium driven by playwright-core, and host pages on two origins. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    // playwright-core gives every launch a temporary profile of its own.
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

export interface HostPage {
  body: string | Buffer;
  headers?: Record<string, string>;
}

export interface HostSite {
  /** The admitted origin: http://127.0.0.1:port. */
  origin: string;
  /** The same server under another origin (http://localhost:port), refused by allowedOrigins. */
  otherOrigin: string;
  /** Serves a page at the path (on both origins). */
  page(path: string, page: HostPage): void;
  close(): Promise<void>;
}

/** A site embedding the widget: pages set by the test, on one server that answers to two origins. */
export async function startHostSite(): Promise<HostSite> {
  const pages = new Map<string, HostPage>();
  const server = http.createServer((request, response) => {
    const page = pages.get(new URL(request.url ?? '/', 'http://x').pathname);
    if (!page) return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...page.headers }).end(page.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    otherOrigin: `http://localhost:${port}`,
    page: (path, page) => void pages.set(path, page),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export function hostPage(snippet: string, options: { head?: string; text?: string } = {}): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Host</title>${options.head ?? ''}</head>
<body><h1>A shop</h1><p>${options.text ?? 'Welcome to our shop.'}</p><a href="#top">A host link</a>${snippet}</body></html>`;
}
