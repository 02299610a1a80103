/**
 * The offline model's rules of the seventh quality step (docs/chat.md, "How answer quality
 * is measured"): the number one written unambiguously, and a table's next row quoted only
 * when it adds to the row chosen; and of later Dutch steps (a verb before its subject, a
 * label that asks what the question asks).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { composeOfflineAnswer, type OfflineContext } from './offline-model.ts';
import { contentTerms, labelAsks, oneAsDigit, questionTerms, questionVerbs, stem } from './text.ts';
import type { Language } from '../agents/schemas.ts';

const passage = (title: string, text: string, score = 0.8) => ({ sourceName: title, title, text, score });
const ask = (question: string, passages: OfflineContext['passages'], language: Language) => composeOfflineAnswer({ question, followsUp: null, language, passages });

const TARIFS = passage(
  'Tarifs',
  [
    'Solo — Prix: 9 € HT par mois; Utilisateurs: 1; Factures par mois: 50',
    'Équipe — Prix: 29 € HT par mois; Utilisateurs: 5; Factures par mois: illimitées',
    'Entreprise — Prix: sur devis; Utilisateurs: illimités; Factures par mois: illimitées',
  ].join('\n\n'),
);
const SECURITE = passage('Sécurité', 'La double authentification est disponible pour chaque utilisateur et obligatoire dans la formule Entreprise.');

describe('the number one written unambiguously', () => {
  test('"un seul", "a single", "één" and their kin are the digit 1; the article alone is not', () => {
    assert.equal(oneAsDigit('pour un seul utilisateur'), 'pour 1 utilisateur');
    assert.equal(oneAsDigit('Une seule facture'), '1 facture');
    assert.equal(oneAsDigit('a single room'), '1 room');
    assert.equal(oneAsDigit('voor één persoon'), 'voor 1 persoon');
    assert.equal(oneAsDigit('een enkele zak'), '1 zak');
    assert.equal(oneAsDigit('für einen einzigen Nutzer'), 'für 1 Nutzer');
    assert.equal(oneAsDigit('para un solo usuario'), 'para 1 usuario');
    assert.equal(oneAsDigit('para una única persona'), 'para 1 persona');
    for (const text of ['un utilisateur', 'een persoon', 'a room', 'seulement', 'singles', 'il travaille seul', 'solos']) assert.equal(oneAsDigit(text), text);
  });

  test('a question for "un seul utilisateur" holds the "1" of a table row, as "cinq personnes" holds its "5"', () => {
    assert.ok(questionTerms("Combien coûte l'offre pour un seul utilisateur ?", 'fr').includes('1'));
    assert.ok(contentTerms('Il suffit d’un seul clic.', 'fr').includes('1'));
    const answer = ask("Combien coûte l'offre pour un seul utilisateur ?", [TARIFS, SECURITE], 'fr');
    assert.equal(answer.declined, false, answer.text);
    assert.match(answer.text, /^Solo — Prix: 9 €/);
  });

  test('without the number the same question holds too little of the row, and is declined', () => {
    const answer = ask("Combien coûte l'offre pour un utilisateur ?", [TARIFS, SECURITE], 'fr');
    assert.equal(answer.declined, true, answer.text);
  });
});

describe('a table’s rows', () => {
  test('the row under a chosen row joins only when it holds a question term the chosen one lacks', () => {
    const solo = ask('Combien de factures puis-je faire par mois avec Solo ?', [TARIFS], 'fr');
    assert.match(solo.text, /^Solo — Prix: 9 € HT par mois; Utilisateurs: 1; Factures par mois: 50\n\nSource: Tarifs$/);
    // "Entreprise" is the next row's own: it joins.
    const both = ask('Quel est le prix des formules Équipe et Entreprise ?', [TARIFS], 'fr');
    assert.match(both.text, /Équipe — .* Entreprise — /s);
  });
});

describe('nouns related through English (FreeDict and WordNet)', () => {
  const FAQ = passage('Questions fréquentes', 'Puis-je changer de formule ?\n\nOui, à tout moment ; le changement prend effet immédiatement et le prix est calculé au prorata.');

  test('a French question’s noun is held by the material’s noun one WordNet sense more specific ("personnes" by "utilisateurs": a user is a person)', () => {
    const answer = ask('Quel est le prix de la formule pour cinq personnes ?', [FAQ, TARIFS], 'fr');
    assert.equal(answer.declined, false, answer.text);
    assert.match(answer.text, /Équipe — Prix: 29 €/);
  });

  test('held so, the noun counts half: the material’s own word holds more', () => {
    const related = ask('Quel est le prix de la formule pour cinq personnes ?', [FAQ, TARIFS], 'fr');
    const own = ask('Quel est le prix de la formule pour cinq utilisateurs ?', [FAQ, TARIFS], 'fr');
    assert.ok(own.coverage > related.coverage, `${own.coverage} > ${related.coverage}`);
  });

  test('a question’s verb (by word order) is not related through English: "tester" is not held by "essayer" (test, attempt)', () => {
    const answer = ask('Puis-je tester sans payer ?', [passage('FAQ', 'Vous pouvez essayer Facturo gratuitement pendant 30 jours, sans carte bancaire.')], 'fr');
    assert.equal(answer.declined, true, answer.text);
  });
});

describe('a Dutch question’s verb before its subject, and a separable verb’s particle (the eighth step)', () => {
  test('the word before the subject pronoun is the verb; a preposition or "er" with one ending the clause is its particle', () => {
    assert.deepEqual([...questionVerbs('Hoe halen jullie de cafeïne eruit?', 'nl')], [stem('halen', 'nl'), stem('eruit', 'nl')]);
    assert.deepEqual([...questionVerbs('Met hoeveel mensen zit je in een workshop?', 'nl')], [stem('zit', 'nl')], 'a clause ending in a noun has no particle');
    assert.deepEqual([...questionVerbs('Hoe meld ik me af?', 'nl')], [stem('meld', 'nl'), stem('af', 'nl')]);
    assert.deepEqual([...questionVerbs('Kan ik bij jullie solliciteren als barista?', 'nl')], [], 'a pronoun after a preposition ("bij jullie") is no subject');
    assert.deepEqual([...questionVerbs('Wat kost de eerste afspraak?', 'nl')], [], 'no subject pronoun, no inversion read');
  });

  test('a separable verb the material says in other words weighs as a verb: "Hoe halen jullie de cafeïne eruit?" is answered from "cafeïnevrije … ontcafeïneerd"', () => {
    const decaf = passage('Assortiment', 'Cafeïnevrij\n\nOnze cafeïnevrije koffie Nachtwacht wordt ontcafeïneerd met de Swiss Water-methode, zonder chemische oplosmiddelen.');
    const faq = passage('Veelgestelde vragen', 'Zijn jullie verpakkingen duurzaam?\n\nOnze zakken zijn thuis composteerbaar, het ventiel inbegrepen.');
    const answer = ask('Hoe halen jullie de cafeïne eruit?', [faq, decaf], 'nl');
    assert.equal(answer.declined, false, answer.text);
    assert.match(answer.text, /Swiss Water/);
    assert.equal(ask('Hoe halen jullie de gluten eruit?', [faq, decaf], 'nl').declined, true, 'the noun the question is about must still be held');
  });
});

describe('a sentence whose label asks what the question asks (the eleventh step)', () => {
  const INTRO = passage('Koffieabonnement', 'Met een abonnement krijg je elke twee of vier weken vers gebrande koffie in de brievenbus.');
  const STEPS = passage('Koffieabonnement', 'Zo werkt het\n\nKies een koffie en de maling.\n\nKies hoe vaak: elke 2 weken of elke 4 weken.', 0.85);

  test('the words before a colon ask as a question would; a time’s colon is no label', () => {
    assert.deepEqual(labelAsks('Kies hoe vaak: elke 2 weken of elke 4 weken.'), ['often']);
    assert.deepEqual(labelAsks('How long: about two hours.'), ['duration']);
    assert.deepEqual(labelAsks('Open om 10:00 uur, elke dag.'), []);
    assert.deepEqual(labelAsks('Met een abonnement krijg je elke twee of vier weken koffie.'), []);
  });

  test('"Hoe vaak komt de koffie bij een abonnement?" quotes the page’s "Kies hoe vaak: …" with the sentence that holds every word', () => {
    const answer = ask('Hoe vaak komt de koffie bij een abonnement?', [STEPS, INTRO], 'nl');
    assert.equal(answer.declined, false, answer.text);
    assert.match(answer.text, /^Kies hoe vaak: elke 2 weken of elke 4 weken\. Met een abonnement krijg je elke twee of vier weken/);
  });

  test('not from a source the answer does not quote, nor when the question asks another kind', () => {
    const elsewhere = passage('Koffie voor kantoren', 'Kies hoe vaak: elke week of elke maand.', 0.85);
    const other = ask('Hoe vaak komt de koffie bij een abonnement?', [elsewhere, INTRO], 'nl');
    assert.doesNotMatch(other.text, /Kies hoe vaak/, other.text);
    const price = ask('Wat kost een abonnement?', [STEPS, passage('Koffieabonnement', 'Een abonnement kost 12 euro per levering.')], 'nl');
    assert.doesNotMatch(price.text, /Kies hoe vaak/, price.text);
  });
});
