import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { asksForPerson, PERSON_PHRASES } from '../../widget/handoff.ts';
import { isWeakAnswer, WEAK_CONFIDENCE } from '../../widget/shared.ts';

describe('asking for a person in words (src/widget/handoff.ts)', () => {
  const asks: Record<keyof typeof PERSON_PHRASES, string[]> = {
    en: ['I want to talk to a person', 'Can I speak with a human?', 'Let me chat to someone from your team', 'Is there a real person I can reach?', 'Human please', 'agent'],
    nl: ['Ik wil een mens spreken', 'Kan ik met een medewerker praten?', 'Graag iemand aan de lijn', 'Ik wil spreken met een echt persoon'],
    fr: ['Je veux parler à une personne', 'Puis-je parler avec un conseiller ?', "J'aimerais parler à quelqu'un", 'Je voudrais parler a un humain'],
    de: ['Ich möchte mit einem Menschen sprechen', 'Kann ich mit einem Mitarbeiter reden?', 'Verbinden Sie mich bitte mit jemandem vom Support'],
    es: ['Quiero hablar con una persona', '¿Puedo hablar con un agente?', 'Necesito hablar con alguien'],
  };

  test('the phrases of each of the five languages count', () => {
    assert.deepEqual(Object.keys(PERSON_PHRASES).sort(), ['de', 'en', 'es', 'fr', 'nl']);
    for (const [language, phrases] of Object.entries(asks)) for (const phrase of phrases) assert.ok(asksForPerson(phrase), `${language}: ${phrase}`);
  });

  test('questions that name a person without asking for one do not', () => {
    for (const question of [
      'Can a person ride this bike with one hand?',
      'How many persons fit on a tandem?',
      'When are you open on Saturday?',
      'Is de fiets geschikt voor een persoon van 1,90 m?',
      'Une personne peut-elle louer deux vélos ?',
      'Wie viele Personen passen in den Anhänger?',
      '¿Cuántas personas caben en el tándem?',
      'Do you have agents in Belgium who sell your bikes?',
    ]) assert.equal(asksForPerson(question), false, question);
  });
});

describe('weak answers (src/widget/shared.ts)', () => {
  test(`below confidence ${WEAK_CONFIDENCE} or without a source is weak`, () => {
    assert.equal(WEAK_CONFIDENCE, 50);
    assert.equal(isWeakAnswer(49, 2), true);
    assert.equal(isWeakAnswer(50, 1), false);
    assert.equal(isWeakAnswer(90, 0), true);
  });
});
