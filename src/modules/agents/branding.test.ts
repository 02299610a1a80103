import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startService, type SeededWorkspace, type Service } from '../../../test/support/harness.ts';

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8ffff3f0005fe02fea7d6a4a00000000049454e44ae426082', 'hex');
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(60, 1)]);
const GIF = Buffer.concat([Buffer.from('GIF89a'), Buffer.alloc(30, 0)]);
const WEBP = Buffer.concat([Buffer.from('RIFF'), Buffer.from([0x24, 0, 0, 0]), Buffer.from('WEBPVP8 '), Buffer.alloc(30, 0)]);
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>');

/** A local site: each path answers with a fixed status and body. */
function startFiles(files: Record<string, { status?: number; body: Buffer | string; type?: string }>): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((request, response) => {
    const file = files[request.url ?? ''];
    if (!file) return void response.writeHead(404).end('not here');
    response.writeHead(file.status ?? 200, { 'content-type': file.type ?? 'application/octet-stream' }).end(file.body);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((done) => server.close(() => done())) }),
    ),
  );
}

describe('branding images', () => {
  let service: Service;
  let site: Awaited<ReturnType<typeof startFiles>>;
  let ws: SeededWorkspace;
  before(async () => {
    site = await startFiles({
      '/logo.png': { body: PNG, type: 'image/png' },
      '/photo.jpg': { body: JPEG },
      '/anim.gif': { body: GIF },
      '/pic.webp': { body: WEBP },
      '/logo.svg': { body: SVG, type: 'image/svg+xml' },
      '/page.html': { body: '<html><body>hi</body></html>', type: 'image/png' },
      '/big.png': { body: Buffer.concat([PNG, Buffer.alloc(512 * 1024)]) },
      '/broken.png': { status: 500, body: 'oops' },
      '/': { body: '<html><head><title>Site</title></head><body><p>Welcome to the site.</p></body></html>', type: 'text/html' },
    });
    service = await startService({ env: { PARLEY_ALLOW_PRIVATE_URLS: '1' } });
    ws = await service.seedWorkspace({ plan: 'enterprise' });
  });
  after(async () => {
    await service.close();
    await site.close();
  });

  async function newAgent(): Promise<string> {
    const reply = await service.api('POST', '/agents', { key: ws.keys.manage, body: { name: 'Agent', useCase: 'general' } });
    return reply.body.data.id;
  }
  const put = (id: string, image: string, url: string) => service.api('PUT', `/agents/${id}/branding/${image}`, { key: ws.keys.manage, body: { url } });

  test('PUT /agents/{id}/branding/logo stores the image and the agent points to a public address of it', async () => {
    const id = await newAgent();
    const reply = await put(id, 'logo', `${site.url}/logo.png`);
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    const logoUrl: string = reply.body.data.branding.logoUrl;
    assert.ok(logoUrl.startsWith(`${service.ctx.config.publicUrl}/api/v1/assets/agents/${id}/logo?v=`), logoUrl);
    assert.equal(reply.body.data.branding.iconUrl, null);
    assert.equal(reply.body.data.id, id);

    const served = await fetch(`${service.url}${new URL(logoUrl).pathname}${new URL(logoUrl).search}`);
    assert.equal(served.status, 200);
    assert.equal(served.headers.get('content-type'), 'image/png');
    assert.match(served.headers.get('cache-control') ?? '', /max-age=31536000/);
    assert.deepEqual(Buffer.from(await served.arrayBuffer()), PNG);
  });

  test('widget images are served to any number of visitors: they never count against a rate limit', async () => {
    const id = await newAgent();
    const logoUrl = new URL((await put(id, 'logo', `${site.url}/logo.png`)).body.data.branding.logoUrl);
    const limit = service.ctx.config.rateLimitPerMinute;
    for (let i = 0; i <= limit; i++) {
      const served = await fetch(`${service.url}${logoUrl.pathname}${logoUrl.search}`);
      assert.equal(served.status, 200, `request ${i + 1}`);
      await served.arrayBuffer();
    }
  });

  test('PUT branding accepts PNG, JPEG, GIF and WebP told from the bytes, and a new image gets a new address', async () => {
    const id = await newAgent();
    const seen = new Set<string>();
    for (const [file, type] of [['photo.jpg', 'image/jpeg'], ['anim.gif', 'image/gif'], ['pic.webp', 'image/webp'], ['logo.png', 'image/png']]) {
      const reply = await put(id, 'icon', `${site.url}/${file}`);
      assert.equal(reply.status, 200, file);
      const iconUrl: string = reply.body.data.branding.iconUrl;
      seen.add(iconUrl);
      const served = await fetch(`${service.url}${new URL(iconUrl).pathname}`);
      assert.equal(served.headers.get('content-type'), type);
    }
    assert.equal(seen.size, 4);
  });

  test('PUT branding refuses SVG and anything that is not an image with 415 unsupported_file_type', async () => {
    const id = await newAgent();
    for (const file of ['logo.svg', 'page.html']) {
      const reply = await put(id, 'logo', `${site.url}/${file}`);
      assert.equal(reply.status, 415, file);
      assert.equal(reply.body.error.code, 'unsupported_file_type');
    }
  });

  test('PUT branding refuses an image over 512 KB with 413 file_too_large', async () => {
    const id = await newAgent();
    const reply = await put(id, 'logo', `${site.url}/big.png`);
    assert.equal(reply.status, 413);
    assert.equal(reply.body.error.code, 'file_too_large');
  });

  test('PUT branding reports an address that does not give the file as 422 fetch_failed saying what came back', async () => {
    const id = await newAgent();
    const missing = await put(id, 'logo', `${site.url}/nothing.png`);
    assert.equal(missing.status, 422);
    assert.equal(missing.body.error.code, 'fetch_failed');
    assert.match(missing.body.error.message, /answered 404/);
    const broken = await put(id, 'logo', `${site.url}/broken.png`);
    assert.match(broken.body.error.message, /answered 500/);
    const closed = await put(id, 'logo', 'http://127.0.0.1:9/logo.png');
    assert.equal(closed.status, 422);
    assert.equal(closed.body.error.code, 'fetch_failed');
  });

  test('PUT branding refuses an address off the public internet with 400 unsafe_url and a non-web address with 400', async () => {
    const id = await newAgent();
    const metadata = await put(id, 'logo', 'http://169.254.169.254/latest/meta-data');
    assert.equal(metadata.status, 400);
    assert.equal(metadata.body.error.code, 'unsafe_url');
    for (const url of ['ftp://example.com/logo.png', 'not an address', 'file:///etc/passwd']) {
      const reply = await put(id, 'logo', url);
      assert.equal(reply.status, 400, url);
      assert.equal(reply.body.error.code, 'invalid_request');
    }
    const unknownImage = await service.api('PUT', `/agents/${id}/branding/banner`, { key: ws.keys.manage, body: { url: `${site.url}/logo.png` } });
    assert.equal(unknownImage.status, 400);
  });

  test('DELETE /agents/{id}/branding/icon removes the image and replies with the agent', async () => {
    const id = await newAgent();
    const set = await put(id, 'icon', `${site.url}/logo.png`);
    const path = new URL(set.body.data.branding.iconUrl).pathname;
    const reply = await service.api('DELETE', `/agents/${id}/branding/icon`, { key: ws.keys.manage });
    assert.equal(reply.status, 200);
    assert.equal(reply.body.data.branding.iconUrl, null);
    assert.equal((await fetch(`${service.url}${path}`)).status, 404);
  });

  test('POST /agents with a website starts the crawl and replies with crawl id and status', async () => {
    const reply = await service.api('POST', '/agents', { key: ws.keys.manage, body: { name: 'Site agent', useCase: 'docs', website: `${site.url}/` } });
    assert.equal(reply.status, 201, JSON.stringify(reply.body));
    assert.equal(typeof reply.body.data.crawl.id, 'string');
    assert.equal(typeof reply.body.data.crawl.status, 'string');
    assert.equal(reply.body.data.crawlError, undefined);
  });
});
