/**
 * The analytics' rules in one place (docs/analytics.md). The daily figures are kept by
 * triggers in migrations/015_analytics.sql, which apply the same numbers; the tests
 * compare the two.
 */

import { WEAK_CONFIDENCE } from '../../widget/shared.ts';

/** An answer below this confidence, or without sources, is weak: the rule the widget offers its forms by (src/widget/shared.ts). */
export { WEAK_CONFIDENCE };

/** The three confidence bands, inclusive bounds: high 80-100, medium 50-79, low 0-49. */
export const BANDS = {
  high: { min: 80, max: 100 },
  medium: { min: WEAK_CONFIDENCE, max: 79 },
  low: { min: 0, max: WEAK_CONFIDENCE - 1 },
} as const;

export type Band = keyof typeof BANDS;

export function bandOf(confidence: number): Band {
  if (confidence >= BANDS.high.min) return 'high';
  return confidence >= BANDS.medium.min ? 'medium' : 'low';
}

export const DEFAULT_PERIOD_DAYS = 30;
export const MAX_PERIOD_DAYS = 366;
export const TOP_QUESTIONS = 10;
export const WEAKEST_ANSWERS = 10;
export const START_PAGES = 10;
/** Characters of an answer shown in weakest. */
export const EXCERPT_LENGTH = 200;
