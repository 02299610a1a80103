import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cappedConfidence, lexicalGrounding, retrievalConfidence } from './grounding.ts';

const kettle = { title: 'Descaling', text: 'Descale the kettle with vinegar once a month.', score: 0.8 };

test('confidence counts the question’s own terms, not the words any question uses ("please", "need", "know")', () => {
  const plain = retrievalConfidence('descale kettle', [kettle]);
  const padded = retrievalConfidence('Hi, please, I need to know: descale kettle?', [kettle]);
  assert.equal(plain, 90);
  assert.equal(padded, plain);
});

test('confidence is 0 without passages and half the best score when the passages hold none of the question’s terms', () => {
  assert.equal(retrievalConfidence('descale kettle', []), 0);
  assert.equal(retrievalConfidence('parking garage', [kettle]), 40);
});

test('an answer found unsupported is capped at 20, a partly supported one at 60', () => {
  assert.equal(cappedConfidence(90, 'unsupported'), 20);
  assert.equal(cappedConfidence(90, 'partial'), 60);
  assert.equal(cappedConfidence(90, 'supported'), 90);
  assert.equal(cappedConfidence(90, null), 90);
});

test('confidence counts the kinds of fact the question asks for as held when a passage holds one, not its asking words', () => {
  const contact = { title: 'Contact details', text: 'Clearwater Physiotherapy, 14 Gloucester Road, Bristol BS7 8AE', score: 1 };
  assert.equal(retrievalConfidence('Where are you located?', [contact], 'en'), 100, '"where are you located" asks for an address');
  const prices = { title: 'Prices', text: 'A basic service costs 59 euros.', score: 0.8 };
  assert.equal(retrievalConfidence('How much is a basic service?', [prices], 'en'), 90);
  assert.equal(retrievalConfidence('How much is a basic service?', [{ ...prices, text: 'A basic service takes an hour.' }], 'en'), 73, 'no amount: a third of what is asked is missing');
});

test('the checks read a passage kept by its id as the title and text it comes with: another text or title under the same id is read as its own', () => {
  const withId = (given: { title: string; text: string }) => ({ ...kettle, ...given, id: 'psg_kettle' });
  const changed = { title: kettle.title, text: 'Rinse the teapot with hot water.' };
  const renamed = { title: 'Kettle care', text: changed.text };
  const checks = (passage: { title: string; text: string; score: number }) =>
    [retrievalConfidence('descale kettle', [passage]), retrievalConfidence('descale kettle', [passage], 'en'), lexicalGrounding('Descale the kettle with vinegar.', [passage])].join(' ');
  assert.equal(checks(withId(kettle)), '90 90 supported');
  for (const given of [changed, renamed, kettle]) assert.equal(checks(withId(given)), checks({ ...kettle, ...given }), given.title);
  assert.equal(checks(withId(changed)), '65 65 unsupported', 'the new text holds neither word: the title only "descale"');
});
