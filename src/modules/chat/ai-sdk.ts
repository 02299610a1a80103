/**
 * The AI SDK and its provider package, loaded at their first use (docs/performance.md,
 * Memory): the offline model answers without them, so a process whose agents all answer
 * with it never loads them; streams and provider models do.
 */
import { firstUse } from '../../platform/first-use.ts';

export const aiSdk = firstUse(() => import('ai'));

export const providerSdk = firstUse(() => import('@ai-sdk/openai-compatible'));
