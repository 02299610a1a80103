import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { indexedPageTitle, ownTitle, sharedTitleAffix } from './site-name.ts';

describe('the site’s name in its page titles', () => {
  test('the suffix most titles share after a separator is the site’s name, whatever the separator', () => {
    assert.deepEqual(sharedTitleAffix(['Over ons | Koffiebranderij De Bonenbaas', 'Contact | Koffiebranderij De Bonenbaas', 'Vers gebrande koffie uit Utrecht | Koffiebranderij De Bonenbaas']), {
      prefix: null,
      suffix: ' | Koffiebranderij De Bonenbaas',
    });
    assert.deepEqual(sharedTitleAffix(['Our team – Clearwater Physiotherapy, Bristol', 'Working from home without a stiff neck – Clearwater Physiotherapy, Bristol']).suffix, ' – Clearwater Physiotherapy, Bristol');
    assert.deepEqual(sharedTitleAffix(['Tarifs · Facturo', 'Sécurité · Facturo', 'FAQ · Facturo']).suffix, ' · Facturo');
  });

  test('a prefix most titles share is the site’s name too', () => {
    assert.deepEqual(sharedTitleAffix(['Acme: Pricing', 'Acme: Delivery', 'Acme: About us', 'Welcome']), { prefix: 'Acme: ', suffix: null });
  });

  test('the part shared by most titles wins over a longer part shared by fewer (a blog’s section under the site’s name)', () => {
    const titles = ['Repairs - Blog - Acme Bikes', 'Winter tyres - Blog - Acme Bikes', 'Prices - Acme Bikes', 'Contact - Acme Bikes', 'About - Acme Bikes'];
    assert.equal(sharedTitleAffix(titles).suffix, ' - Acme Bikes');
  });

  test('no part when fewer than half of the titles share it, or with a single title (a one-page source is about its whole title)', () => {
    assert.deepEqual(sharedTitleAffix(['Prices | Acme', 'Delivery | Acme', 'Contact', 'About us', 'Returns policy']), { prefix: null, suffix: null });
    assert.deepEqual(sharedTitleAffix(['Prices | Acme']), { prefix: null, suffix: null });
    assert.deepEqual(sharedTitleAffix([]), { prefix: null, suffix: null });
  });

  test('a hyphen inside a word, or a colon without a space after it, is no separator', () => {
    assert.deepEqual(sharedTitleAffix(['Annual service e-bike', 'Repair e-bike', 'Tune-up e-bike']), { prefix: null, suffix: null });
    assert.deepEqual(sharedTitleAffix(['Opening at 9:30', 'Closing at 9:30']), { prefix: null, suffix: null });
  });

  test('a page is indexed by its own part of the title; the home page and a title that is only the name keep it whole', () => {
    const affix = { prefix: null, suffix: ' | Koffiebranderij De Bonenbaas' };
    assert.equal(ownTitle('Over ons | Koffiebranderij De Bonenbaas', affix, false), 'Over ons');
    assert.equal(ownTitle('Vers gebrande koffie uit Utrecht | Koffiebranderij De Bonenbaas', affix, true), 'Vers gebrande koffie uit Utrecht | Koffiebranderij De Bonenbaas');
    assert.equal(ownTitle('Koffiebranderij De Bonenbaas', affix, false), 'Koffiebranderij De Bonenbaas');
    assert.equal(ownTitle('Blog  |  Koffiebranderij De Bonenbaas', affix, false), 'Blog');
    assert.equal(ownTitle('Nieuws', affix, false), 'Nieuws');
  });

  test('the home page is the site’s root or the start address of a crawl that follows links, not a single page crawled', () => {
    const crawl = { url: 'https://example.com/shop/', mode: 'links', title_prefix: null, title_suffix: ' · Acme' };
    assert.equal(indexedPageTitle('Shop · Acme', 'https://example.com/shop/', crawl), 'Shop · Acme');
    assert.equal(indexedPageTitle('Welcome · Acme', 'https://example.com/', crawl), 'Welcome · Acme');
    assert.equal(indexedPageTitle('Prices · Acme', 'https://example.com/shop/prices', crawl), 'Prices');
    assert.equal(indexedPageTitle('Prices · Acme', 'https://example.com/shop/prices', undefined), 'Prices · Acme');
    assert.equal(indexedPageTitle('Prices · Acme', 'https://example.com/shop/prices', { ...crawl, url: 'https://example.com/shop/prices', mode: 'single' }), 'Prices');
  });
});
