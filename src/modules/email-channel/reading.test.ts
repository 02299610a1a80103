import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { replySubject, visitorText } from './reading.ts';

describe('the visitor’s own words: quoted history and signature cut', () => {
  const intros = {
    en: 'On Tue, 3 Mar 2026 at 10:00, Bikes <help@bikes.example> wrote:',
    nl: 'Op di 3 mrt 2026 om 10:00 schreef Bikes <help@bikes.example>:',
    fr: 'Le mar. 3 mars 2026 à 10:00, Bikes <help@bikes.example> a écrit :',
    de: 'Am Di., 3. März 2026 um 10:00 Uhr schrieb Bikes <help@bikes.example>:',
    es: 'El mar, 3 mar 2026 a las 10:00, Bikes (<help@bikes.example>) escribió:',
  };
  for (const [language, intro] of Object.entries(intros)) {
    test(`${language}: "${intro.slice(0, 12)}…" and everything below it is cut`, () => {
      assert.equal(visitorText(`Is it open?\n\n${intro}\n> Earlier answer\n> more`), 'Is it open?');
    });
  }

  test('an intro wrapped over two lines is found', () => {
    assert.equal(visitorText('Thanks!\n\nOn Tue, 3 Mar 2026 at 10:00, Bikes\n<help@bikes.example> wrote:\n> old'), 'Thanks!');
  });

  test('lines starting with ">" and the "-- " signature delimiter end the text', () => {
    assert.equal(visitorText('First line\n> quoted\nafter'), 'First line');
    assert.equal(visitorText('Question?\n-- \nAna\nSent from my phone'), 'Question?');
  });

  test('a text without quotes is kept whole', () => {
    assert.equal(visitorText('One\n\nTwo, on Monday.'), 'One\n\nTwo, on Monday.');
  });
});

describe('the reply subject', () => {
  test('"Re: " once, whatever prefixes the subject had', () => {
    assert.equal(replySubject('Hours'), 'Re: Hours');
    assert.equal(replySubject('RE: Re: Aw: Hours'), 'Re: Hours');
    assert.equal(replySubject(''), 'Re: …');
  });
});
