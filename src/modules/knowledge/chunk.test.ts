import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chunkText, tailOf } from './chunk.ts';
import { read } from './read-file.worker.ts';
import { makeTitledPdf } from './test-support.ts';

const sentence = (i: number) => `Sentence number ${i} talks about parcels and their delivery times in some detail.`;

test('chunkText keeps a short text whole in one passage', () => {
  const chunks = chunkText('Hello there.\n\nA second paragraph.');
  assert.equal(chunks.length, 1);
  assert.equal(chunks[0].text, 'Hello there.\n\nA second paragraph.');
  assert.equal(chunks[0].position, 0);
});

test('chunkText starts a new passage at each Markdown heading and keeps the heading path', () => {
  const text = '# Guide\n\n## Shipping\n\nWe ship daily.\n\n## Returns\n\nReturn within 30 days.\n\n### Refunds\n\nRefunds take a week.';
  const chunks = chunkText(text);
  assert.deepEqual(
    chunks.map((c) => c.heading),
    ['Guide › Shipping', 'Guide › Returns', 'Guide › Returns › Refunds'],
  );
  assert.match(chunks[0].text, /^Guide › Shipping\n\nWe ship daily\.$/);
  assert.deepEqual(chunks.map((c) => c.position), [0, 1, 2]);
});

test('chunkText keeps passages near 1,200 characters with about 15% overlap', () => {
  const text = Array.from({ length: 80 }, (_, i) => sentence(i)).join(' ');
  const chunks = chunkText(text);
  assert.ok(chunks.length >= 5, `${chunks.length} passages`);
  for (const chunk of chunks) assert.ok(chunk.text.length <= 1200, `passage of ${chunk.text.length} characters`);
  for (let i = 1; i < chunks.length; i++) {
    const previous = chunks[i - 1].text;
    const firstSentence = chunks[i].text.split(/(?<=\.)\s+/)[0];
    assert.ok(previous.includes(firstSentence), `passage ${i} opens with text from passage ${i - 1}`);
  }
  // every sentence is somewhere
  for (let i = 0; i < 80; i++) assert.ok(chunks.some((c) => c.text.includes(sentence(i))), `sentence ${i} kept`);
});

test('chunkText splits on paragraphs before sentences', () => {
  const para = (tag: string) => Array.from({ length: 6 }, (_, i) => `${tag} line ${i} is here to fill space for the test.`).join(' ');
  const chunks = chunkText([para('Alpha'), para('Beta'), para('Gamma'), para('Delta'), para('Epsilon')].join('\n\n'), { maxChars: 700, overlapChars: 100 });
  assert.ok(chunks.length >= 2);
  assert.ok(chunks[0].text.startsWith('Alpha line 0'));
  assert.ok(chunks.every((c) => c.text.length <= 700));
});

test('chunkText cuts a run-on text without sentence ends at word boundaries', () => {
  const words = Array.from({ length: 600 }, (_, i) => `word${i}`).join(' ');
  const chunks = chunkText(words);
  assert.ok(chunks.length >= 4);
  assert.ok(chunks.every((c) => c.text.length <= 1200 && !/^\S*\d\S* $/.test(c.text)));
});

test('chunkText of empty or blank text gives no passages', () => {
  assert.deepEqual(chunkText(''), []);
  assert.deepEqual(chunkText('\n\n   \n'), []);
  assert.deepEqual(chunkText('# Only a heading'), []);
});

test('tailOf starts at a sentence boundary', () => {
  assert.equal(tailOf('One thing. Two things here. Three.', 20), 'Three.');
  assert.equal(tailOf('short', 20), 'short');
});

test('chunkText joins the lines a page width wrapped, and keeps a line that ends a sentence or stops short of the margin', () => {
  const text = [
    'Prices per kilo, excluding VAT, for restaurants and offices, valid from the first of',
    'January until the end of the year.',
    'House blend: 21,50 euro per kilo',
    'Espresso: 23,00 euro per kilo',
    'The minimum order is 5 kilo per delivery.',
  ].join('\n');
  assert.equal(
    chunkText(text)[0].text,
    'Prices per kilo, excluding VAT, for restaurants and offices, valid from the first of January until the end of the year.\nHouse blend: 21,50 euro per kilo\nEspresso: 23,00 euro per kilo\nThe minimum order is 5 kilo per delivery.',
  );
});

test('a PDF’s title set apart by space from the lines under it is a paragraph of its own; its lines at the usual spacing are one paragraph', async () => {
  const pdf = await makeTitledPdf('Fee schedule 2026', [
    'Home visits within 5 miles of the clinic: 95 pounds per visit.',
    'Gift vouchers are available for any amount from 25 pounds and are valid for twelve months from the day they are bought.',
  ]);
  const text = await read({ kind: 'pdf', bytes: new Uint8Array(pdf) });
  assert.match(text, /^Fee schedule 2026\n\nHome visits within 5 miles of the clinic: 95 pounds per visit\.\nGift vouchers [^\n]+\n[^\n]+$/);
  assert.equal(chunkText(text)[0].text, 'Fee schedule 2026\n\nHome visits within 5 miles of the clinic: 95 pounds per visit.\nGift vouchers are available for any amount from 25 pounds and are valid for twelve months from the day they are bought.');
});
