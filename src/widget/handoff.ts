/**
 * A visitor asking in words for a person ("I want to talk to a person", "ik wil een
 * mens spreken"): when tickets are enabled the widget answers with the ticket form.
 * A short phrase list per widget language (docs/widget.md, "Talk to a person"),
 * matched on the lower-cased message without accents, in every language at once (a
 * visitor may write in another language than the widget's). The patterns want a verb
 * of speaking and a person together, so "can a person ride this bike?" does not count.
 */
import type { Language } from '../modules/agents/schemas.ts';

export const PERSON_PHRASES: Record<Language, RegExp[]> = {
  en: [
    /\b(talk|speak|chat)(ing)? (to|with) (a |an |some|one of your |your )?(real |live |actual )?(person|human|someone|somebody|employee|representative|agent|operator|staff|support)/,
    /\b(a|an) (real|live|actual) (person|human)\b/,
    /^(a )?(human|person|agent|operator)( please)?\W*$/,
  ],
  nl: [
    /\b(spreken|praten|chatten) met (een |de |iemand)?(echte? )?(mens|medewerker|persoon|iemand)/,
    /\b(een |de )?(echte? )?(mens|medewerker|persoon|iemand) (spreken|praten|chatten|aan de lijn)\b/,
  ],
  fr: [/\bparler (a|avec) (un |une |l'|l’|le |la |quelqu)?(vrai |vraie )?(personne|humain|conseill|agent|employe|operat|quelqu)/],
  de: [
    /\bmit (einem |einer |jemand|ihrem |ihren )?(echten )?(mensch|mitarbeiter|person|berater|jemand|support).*\b(sprechen|reden|chatten|verbinden)\b/,
    /\b(sprechen|reden|chatten|verbinden)\b.*\bmit (einem |einer |jemand|ihrem |ihren )?(echten )?(mensch|mitarbeiter|person|berater|jemand|support)/,
  ],
  es: [/\b(hablar|conversar|chatear) con (una |un |el |la |alguien|algun )?(persona|humano|agente|asesor|empleado|operador|alguien|representante)/],
};

export function asksForPerson(message: string): boolean {
  const text = message.toLowerCase().normalize('NFD').replace(/[\u0300-\u036f]/g, '').replace(/\s+/g, ' ').trim();
  return Object.values(PERSON_PHRASES).some((patterns) => patterns.some((pattern) => pattern.test(text)));
}
