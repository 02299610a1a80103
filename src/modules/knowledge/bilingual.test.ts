import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { bilingualFile, deriveBilingual, dictionariesInstalled, FOREIGN_LANGUAGES, translations } from './bilingual.ts';

describe("Translations of words from FreeDict's dictionaries (bilingual-*.json)", () => {
  for (const language of FOREIGN_LANGUAGES) {
    test(`bilingual-${language}.json is what the FreeDict packages derive`, { skip: !dictionariesInstalled(language) && 'the dict-freedict packages are not installed' }, () => {
      assert.deepEqual(JSON.parse(readFileSync(bilingualFile(language), 'utf8')), deriveBilingual(language), 'stale: run node src/modules/knowledge/bilingual.ts');
    });
  }

  test('a word translates from and into English, both dictionaries of a pair read', () => {
    assert.ok(translations('afspraak', 'nl', 'en').includes('appointment'));
    assert.ok(translations('Germany', 'en', 'nl').includes('duitsland'));
    assert.ok(translations('masaje', 'es', 'en').includes('massage'));
    assert.ok(translations('ship', 'en', 'nl').includes('verzenden'), 'from the reversed Dutch-English dictionary');
  });

  test('an inflected word is found by its stem', () => {
    assert.ok(translations('afspraken', 'nl', 'en').includes('appointment'));
  });

  test('between two languages other than English the translation goes through English', () => {
    assert.ok(translations('masaje', 'es', 'nl').includes('masseren'));
    assert.deepEqual(translations('afspraak', 'nl', 'nl'), []);
    assert.deepEqual(translations('okafor', 'en', 'fr'), []);
  });
});
