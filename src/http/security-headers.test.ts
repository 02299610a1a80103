import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { ADMIN_TOKEN, startService, type SeededWorkspace, type Service } from '../../test/support/harness.ts';
import { seedAgent } from '../../test/support/seed-agent.ts';
import { launchChromium } from '../modules/widget/browser.ts';

describe('security headers: nosniff on every reply, no-store on keyed ones, a policy and no framing for the service\'s own pages', () => {
  let service: Service;
  let ws: SeededWorkspace;
  let agent: string;

  before(async () => {
    service = await startService({ workers: false });
    ws = await service.seedWorkspace({ plan: 'enterprise' });
    agent = await seedAgent(service, ws, 'Framed agent');
    const patched = await service.api('PATCH', `/agents/${agent}`, { key: ws.keys.manage, body: { allowedOrigins: ['https://shop.example.com'] } });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
  });
  after(async () => service?.close());

  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${service.url}${path}`, { headers });
  const key = (token: string) => ({ authorization: `Bearer ${token}` });

  test('every reply says X-Content-Type-Options: nosniff: pages, API, errors, unknown routes, the widget and the visitor API', async () => {
    const replies = [
      await get('/'),
      await get('/docs/'),
      await get('/health'),
      await get('/api/v1/openapi.json'),
      await get('/api/v1/agents', key(ws.keys.read)),
      await get('/api/v1/agents'),
      await get('/api/v1/no-such-route', key(ws.keys.read)),
      await get('/no-such-page'),
      await get('/admin/v1/workspaces', key(ADMIN_TOKEN)),
      await get(`/visitor/v1/agents/${agent}/widget`),
      await get('/widget.js'),
      await get(`/chat/${agent}`),
      await get('/reports/nothing'),
    ];
    for (const reply of replies) {
      assert.equal(reply.headers.get('x-content-type-options'), 'nosniff', `${reply.url} ${reply.status}`);
      await reply.arrayBuffer();
    }
  });

  test('a reply to a request with an Authorization header is Cache-Control: no-store (API, operator API, MCP, also when refused; the operator API and the dashboard /app/api/ also without one); keyless replies keep their own caching', async () => {
    const keyed = [
      await get('/api/v1/agents', key(ws.keys.read)),
      await get(`/api/v1/agents/${agent}`, key(ws.keys.read)),
      await get('/api/v1/agents', key('cl_wrong')),
      await get('/admin/v1/workspaces', key(ADMIN_TOKEN)),
      await get('/admin/v1/workspaces', key('wrong')),
      await get('/admin/v1/workspaces'),
      await get('/app/api/me'),
      await fetch(`${service.url}/mcp`, { method: 'POST', headers: { ...key(ws.keys.read), 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }) }),
    ];
    for (const reply of keyed) {
      assert.equal(reply.headers.get('cache-control'), 'no-store', `${reply.url} ${reply.status}`);
      await reply.arrayBuffer();
    }
    const loader = await get('/widget.js');
    assert.match(loader.headers.get('cache-control') ?? '', /^public/);
    await loader.arrayBuffer();
  });

  test("/ and /docs: a Content-Security-Policy with frame-ancestors 'none' and X-Frame-Options: DENY; the docs page's inline start-up script allowed by its hash alone", async () => {
    for (const path of ['/', '/docs/', '/docs/js/scalar.js']) {
      const reply = await get(path);
      const policy = reply.headers.get('content-security-policy') ?? '';
      assert.match(policy, /default-src 'none'/, path);
      assert.match(policy, /frame-ancestors 'none'/, path);
      assert.doesNotMatch(policy, /script-src[^;]*'unsafe-inline'/, path);
      assert.equal(reply.headers.get('x-frame-options'), 'DENY', path);
      await reply.arrayBuffer();
    }
    assert.match((await get('/docs/')).headers.get('content-security-policy') ?? '', /script-src 'self' 'sha256-[A-Za-z0-9+/]+=*'/);
  });

  test("the widget's iframe page stays frameable by the agent's admitted sites: no X-Frame-Options, its own frame-ancestors", async () => {
    const reply = await get(`/chat/${agent}`);
    assert.equal(reply.status, 200);
    assert.equal(reply.headers.get('x-frame-options'), null);
    assert.match(reply.headers.get('content-security-policy') ?? '', /frame-ancestors https:\/\/shop\.example\.com/);
    await reply.arrayBuffer();
  });

  describe('in a browser', () => {
    let browser: Browser;
    before(async () => {
      browser = await launchChromium();
    });
    after(async () => browser?.close());

    test('the reference at /docs still renders under its policy, with no policy violation; so does the front page', async () => {
      const page = await browser.newPage();
      const violations: string[] = [];
      page.on('console', (message) => {
        if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
      });
      await page.goto(`${service.url}/docs/`);
      // Scalar shows the document's operations, read from /api/v1/openapi.json.
      await page.getByText('Parley API').first().waitFor({ timeout: 30_000 });
      await page.getByText(/List agents|agents/i).first().waitFor({ timeout: 30_000 });
      await page.goto(`${service.url}/`);
      await page.getByText('Parley').first().waitFor();
      assert.deepEqual(violations, []);
      await page.close();
    });
  });
});
