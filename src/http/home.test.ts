import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { freePort } from '../../test/support/processes.ts';
import { startService, type Service } from '../../test/support/harness.ts';
import { storeUnderTest } from '../../test/support/stores.ts';

let service: Service;
before(async () => {
  service = await startService({ workers: false });
});
after(() => service.close());

const { version } = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8'));

describe('the front page', () => {
  test('GET / answers without a key with a page naming the service and its version, linking to the reference, the OpenAPI document and /health', async () => {
    const response = await fetch(`${service.url}/`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(response.headers.get('x-request-id') ?? '', /^req_/);
    const page = await response.text();
    assert.match(page, /<h1>Parley<\/h1>/);
    assert.ok(page.includes(version), `version ${version}`);
    for (const href of ['/docs/', '/api/v1/openapi.json', '/health']) assert.ok(page.includes(`href="${href}"`), href);
    for (const href of [...page.matchAll(/href="([^"]+)"/g)].map((match) => match[1])) {
      assert.equal((await fetch(`${service.url}${href}`)).status, 200, `${href} answers without a key`);
    }
  });
});

describe('the API reference at /docs', () => {
  test('GET /docs serves the reference page without a key; it reads /api/v1/openapi.json', async () => {
    const response = await fetch(`${service.url}/docs`);
    assert.equal(response.status, 200);
    assert.equal(new URL(response.url).pathname, '/docs/', 'its relative script address needs the trailing slash');
    assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
    const page = await response.text();
    assert.match(page, /"url": "\/api\/v1\/openapi\.json"/);
    const document = await fetch(`${service.url}/api/v1/openapi.json`);
    assert.equal(document.status, 200);
    assert.equal((await document.json()).openapi, '3.1.0');
  });

  test('the page works offline: its only script comes from this service, and no web fonts, telemetry or Scalar services are asked for', async () => {
    const page = await (await fetch(`${service.url}/docs/`)).text();
    const scripts = [...page.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)].map((match) => match[1]!);
    assert.deepEqual(scripts, ['js/scalar.js']);
    assert.doesNotMatch(page, /https?:\/\//, 'no address elsewhere in the page');
    assert.doesNotMatch(page, /type="module"/);
    for (const setting of ['"withDefaultFonts": false', '"telemetry": false']) assert.ok(page.includes(setting), setting);
    const script = await fetch(new URL(scripts[0]!, `${service.url}/docs/`));
    assert.equal(script.status, 200);
    assert.match(script.headers.get('content-type') ?? '', /javascript/);
    assert.ok((await script.text()).length > 1_000_000, 'the whole renderer, not a loader');
  });

  test('the front page, /health and /docs stay out of the OpenAPI document', async () => {
    const document = await (await fetch(`${service.url}/api/v1/openapi.json`)).json();
    for (const path of Object.keys(document.paths)) assert.doesNotMatch(path, /^\/($|health|docs)/, path);
  });
});

describe('GET /health', () => {
  test('GET /health answers 200 without a key: the version, the database and Redis up (or not configured)', async () => {
    const response = await fetch(`${service.url}/health`);
    assert.equal(response.status, 200);
    const postgres = storeUnderTest() === 'postgres';
    assert.deepEqual((await response.json()).data, {
      status: 'ok',
      version,
      database: { kind: postgres ? 'postgres' : 'embedded', status: 'up' },
      redis: { status: postgres ? 'up' : 'not_configured' },
    });
  });

  test('GET /health answers 503 naming Redis as down when Redis does not answer, the database still up', async () => {
    const deadRedis = await startService({ workers: false, env: { REDIS_URL: `redis://127.0.0.1:${await freePort()}` } });
    try {
      deadRedis.ctx.redis!.client.on('error', () => {}); // the refused connections are what this test is about
      const response = await fetch(`${deadRedis.url}/health`);
      assert.equal(response.status, 503);
      const health = (await response.json()).data;
      assert.equal(health.status, 'degraded');
      assert.equal(health.database.status, 'up');
      assert.deepEqual(health.redis, { status: 'down' });
    } finally {
      await deadRedis.close();
    }
  });
});
