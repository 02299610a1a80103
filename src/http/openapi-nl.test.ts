import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { startService, type Service } from '../../test/support/harness.ts';
import { launchChromium } from '../modules/widget/browser.ts';
import { untranslated, type OpenApiCatalogue } from './openapi-languages.ts';
import { dutch } from './openapi.nl.ts';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

let service: Service;
let english: any;
let nl: any;
before(async () => {
  service = await startService({ workers: false });
  english = await (await fetch(`${service.url}/api/v1/openapi.json`)).json();
  const response = await fetch(`${service.url}/api/v1/openapi.nl.json`);
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
  nl = await response.json();
});
after(() => service.close());

/**
 * The document with its prose taken out, written apart from the translation on purpose:
 * every summary, description and title string outside examples, defaults, enums and
 * consts becomes "", every operation's tags their count. What is left must be equal.
 */
function withoutProse(node: unknown, key = '', names = false): unknown {
  if (Array.isArray(node)) return key === 'tags' ? node.length : node.map((child) => withoutProse(child));
  if (!node || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node).map(([name, value]) => {
      if (!names && ['example', 'examples', 'default', 'enum', 'const'].includes(name)) return [name, value];
      if (!names && ['summary', 'description', 'title'].includes(name) && typeof value === 'string') return [name, ''];
      return [name, withoutProse(value, names ? '' : name, !names && ['properties', 'patternProperties', '$defs', 'schemas'].includes(name))];
    }),
  );
}

function operations(document: any): Array<{ name: string; op: any }> {
  return Object.entries(document.paths).flatMap(([path, item]: [string, any]) => METHODS.filter((m) => item[m]).map((m) => ({ name: `${m.toUpperCase()} ${path}`, op: item[m] })));
}

/** Every string the English document says where a translation could go (prose and tags). */
function englishTexts(document: any): Set<string> {
  const texts = new Set<string>();
  const walk = (node: unknown, names = false): void => {
    if (Array.isArray(node)) return node.forEach((child) => walk(child));
    if (!node || typeof node !== 'object') return;
    for (const [name, value] of Object.entries(node)) {
      if (!names && ['example', 'examples', 'default', 'enum', 'const'].includes(name)) continue;
      if (!names && ['summary', 'description', 'title'].includes(name) && typeof value === 'string') texts.add(value);
      else walk(value, !names && ['properties', 'patternProperties', '$defs', 'schemas'].includes(name));
    }
  };
  walk(document);
  return texts;
}

describe('the OpenAPI document in Dutch', () => {
  test('every summary, description, title and tag of the English document has a Dutch entry in src/http/openapi.nl.ts (a new route cannot ship untranslated)', () => {
    const missing = untranslated(english, dutch);
    assert.deepEqual(missing, [], `add these to src/http/openapi.nl.ts:\n${missing.map((m) => `  ${m.at}: ${JSON.stringify(m.english)}`).join('\n')}`);
  });

  test('the catalogue holds nothing the English document no longer says: no stale operation, tag or text', () => {
    const said = englishTexts(english);
    const named = new Set(operations(english).map(({ name }) => name));
    const tags = new Set(operations(english).flatMap(({ op }) => op.tags ?? []));
    const stale = [
      ...Object.keys(dutch.operations).filter((name) => !named.has(name)).map((name) => `operation ${name}`),
      ...Object.keys(dutch.tags).filter((tag) => !tags.has(tag)).map((tag) => `tag ${tag}`),
      ...Object.keys(dutch.texts).filter((text) => !said.has(text)).map((text) => `text ${JSON.stringify(text)}`),
    ];
    assert.deepEqual(stale, [], 'remove or rekey these in src/http/openapi.nl.ts');
  });

  test('is served at /api/v1/openapi.nl.json without a key, with the same paths, parameters, schemas and examples as the English one; only prose and tag names differ', () => {
    assert.deepEqual(withoutProse(nl), withoutProse(english));
    assert.deepEqual(Object.keys(nl.paths), Object.keys(english.paths));
    assert.deepEqual(Object.keys(nl.components.schemas), Object.keys(english.components.schemas));
  });

  test("every operation's summary and tags are the catalogue's Dutch; field descriptions too", () => {
    const catalogue: OpenApiCatalogue = dutch;
    const dutchOperations = new Map(operations(nl).map(({ name, op }) => [name, op]));
    for (const { name, op } of operations(english)) {
      const translated = dutchOperations.get(name);
      assert.equal(translated.summary, catalogue.operations[name]!.summary, name);
      assert.deepEqual(translated.tags, op.tags.map((tag: string) => catalogue.tags[tag]), name);
    }
    assert.equal(nl.info.title, 'Parley-API');
    assert.equal(nl.paths['/agents'].post.summary, 'Een agent maken');
    assert.equal(nl.components.schemas.Agent.properties.createdAt.description, 'ISO 8601-tijd in UTC');
    assert.equal(english.components.schemas.Agent.properties.createdAt.description, 'ISO 8601 time in UTC', 'the English document is left as it was');
  });
});

describe('the API reference in Dutch at /docs/nl', () => {
  test('GET /docs/nl serves the reference page without a key, lang="nl", reading /api/v1/openapi.nl.json with its own script, and links to the English page; /docs links to it', async () => {
    const response = await fetch(`${service.url}/docs/nl`);
    assert.equal(response.status, 200);
    assert.equal(new URL(response.url).pathname, '/docs/nl/', 'its relative script address needs the trailing slash');
    const page = await response.text();
    assert.match(page, /<html lang="nl">/);
    assert.match(page, /"url": "\/api\/v1\/openapi\.nl\.json"/);
    assert.match(page, /<a id="parley-language-switch" href="\/docs\/" hreflang="en"[^>]*>English<\/a>/);
    assert.doesNotMatch(page, /https?:\/\//, 'no address elsewhere: the page works offline like the English one');
    const script = await fetch(`${service.url}/docs/nl/js/scalar.js`);
    assert.equal(script.status, 200);
    assert.match(script.headers.get('content-security-policy') ?? '', /default-src 'none'/);
    await script.arrayBuffer();
    const englishPage = await (await fetch(`${service.url}/docs/`)).text();
    assert.match(englishPage, /<html lang="en">/);
    assert.match(englishPage, /<a id="parley-language-switch" href="\/docs\/nl\/" hreflang="nl"[^>]*>Nederlands<\/a>/);
  });

  describe('in a browser', () => {
    let browser: Browser;
    before(async () => {
      browser = await launchChromium();
    });
    after(async () => browser?.close());

    test('the Dutch reference renders in Chromium under its policy: the Dutch title and summaries are shown, and the switch leads to the English reference and back', async () => {
      const page = await browser.newPage();
      const violations: string[] = [];
      page.on('console', (message) => {
        if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
      });
      const elsewhere: string[] = [];
      page.on('request', (request) => {
        if (!request.url().startsWith(service.url) && !/^(data|blob):/.test(request.url())) elsewhere.push(request.url());
      });
      await page.goto(`${service.url}/docs/nl/`);
      await page.getByRole('heading', { name: 'Parley-API' }).first().waitFor({ timeout: 30_000 });
      await page.getByText('De openbare REST-API van Parley').first().waitFor({ timeout: 30_000 });
      // The first tag is open: its Dutch name and its operations' Dutch summaries, in the sidebar and the page.
      await page.getByRole('heading', { name: 'werkruimte' }).first().waitFor({ timeout: 30_000 });
      await page.getByText('De sleutel, het abonnement en het verbruik').first().waitFor({ timeout: 30_000 });
      await page.getByText('bestanden van bezoekers').first().waitFor({ timeout: 30_000 });
      assert.equal(await page.getByText('The key, plan and usage').count(), 0, 'no English summary on the Dutch page');

      await page.locator('#parley-language-switch').click();
      await page.waitForURL(`${service.url}/docs/`);
      await page.getByText('The key, plan and usage').first().waitFor({ timeout: 30_000 });
      await page.locator('#parley-language-switch').click();
      await page.waitForURL(`${service.url}/docs/nl/`);
      await page.getByText('De sleutel, het abonnement en het verbruik').first().waitFor({ timeout: 30_000 });
      assert.deepEqual(violations, []);
      assert.deepEqual(elsewhere, [], 'nothing is loaded from elsewhere');
      await page.close();
    });
  });
});
