import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cappedConfidence, retrievalConfidence } from './grounding.ts';

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
