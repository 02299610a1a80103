import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { bilingualFile, deriveBilingual, dictionariesInstalled, LANGUAGE_PAIRS, translations } from './bilingual.ts';
import { translatedAlternatives } from './search.ts';

describe("Translations of words from FreeDict's dictionaries (bilingual-*.json)", () => {
  for (const pair of LANGUAGE_PAIRS) {
    test(`bilingual-${pair.join('-')}.json is what the FreeDict packages derive`, { skip: !dictionariesInstalled(pair) && 'the dict-freedict packages are not installed' }, () => {
      assert.deepEqual(JSON.parse(readFileSync(bilingualFile(pair), 'utf8')), deriveBilingual(pair), 'stale: run node src/modules/knowledge/bilingual.ts');
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

  test('between two languages other than English, by their own dictionaries; a German past participle by its infinitive', () => {
    assert.ok(translations('Daten', 'de', 'fr').includes('données'));
    assert.ok(translations('gespeichert', 'de', 'fr').includes('sauvegarder'));
    assert.ok(translations('données', 'fr', 'de').includes('daten'), 'read both ways');
    assert.deepEqual(translations('afspraak', 'nl', 'nl'), []);
    assert.deepEqual(translations('okafor', 'en', 'fr'), []);
  });

  test('the search takes a question’s translations into the agent’s language as further forms of its words, only across languages', () => {
    assert.ok(translatedAlternatives('Do you ship to Germany?', 'en', 'nl').some(([word, alternative]) => word === 'germany' && alternative === 'duitsland'));
    assert.deepEqual(translatedAlternatives('Verzenden jullie naar Duitsland?', 'nl', 'nl'), []);
  });

  test('into English, a word with one translation is also searched as that word’s synonyms ("eerste" is only "first": "initial"); a word with several is not', () => {
    const alternatives = translatedAlternatives('Wat kost de eerste afspraak?', 'nl', 'en');
    assert.ok(alternatives.some(([word, alternative, share]) => word === 'eerste' && alternative === 'initial' && share === undefined));
    assert.ok(alternatives.some(([word, alternative]) => word === 'afspraak' && alternative === 'appointment'));
    assert.ok(!alternatives.some(([word, alternative]) => word === 'afspraak' && alternative === 'engagement'), '"appointment" is one of five translations');
    assert.ok(!translatedAlternatives('Wat kost de eerste afspraak?', 'nl', 'fr').some(([, alternative]) => alternative === 'initial'), 'English only: WordNet');
  });
});
