/**
 * From a catalogue model to an AI SDK model: the offline model for the built-in one,
 * the configured OpenAI-compatible provider (OpenAI, Ollama, vLLM, LM Studio, …) for
 * every other. The provider's endpoint is operator configuration, so it is reached
 * with the ordinary fetch, not the guarded one.
 */
import type { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';
import type { Context } from '../../context.ts';
import { OFFLINE_MODEL_ID, type ModelEntry } from '../workspace/models.ts';
import { OFFLINE_PROVIDER, offlineLanguageModel } from './offline-model.ts';
import { providerSdk } from './ai-sdk.ts';

export interface AnsweringModel {
  entry: ModelEntry;
  model: LanguageModel;
  offline: boolean;
}

/** The provider's models by id, made once: making one measured about 0.2 ms, on every answer. */
const providerModels = new WeakMap<Context, { provider: ReturnType<typeof createOpenAICompatible>; models: Map<string, LanguageModel> }>();

async function providerModel(ctx: Context, modelId: string): Promise<LanguageModel> {
  const { createOpenAICompatible } = await providerSdk();
  let made = providerModels.get(ctx);
  if (!made) {
    const provider = createOpenAICompatible({
      name: 'openai',
      baseURL: (ctx.config.openaiBaseUrl ?? 'https://api.openai.com/v1').replace(/\/+$/, ''),
      apiKey: ctx.config.openaiApiKey,
    });
    providerModels.set(ctx, (made = { provider, models: new Map() }));
  }
  let model = made.models.get(modelId);
  if (!model) made.models.set(modelId, (model = made.provider.chatModel(modelId)));
  return model;
}

export function hasProvider(ctx: Context): boolean {
  return Boolean(ctx.config.openaiBaseUrl || ctx.config.openaiApiKey);
}

export function offlineModel(ctx: Context): AnsweringModel {
  const entry = ctx.models.find(OFFLINE_MODEL_ID)!;
  return { entry, model: offlineLanguageModel(entry.id), offline: true };
}

/**
 * The model an agent answers with. Without a configured provider a provider model
 * cannot be reached, so the offline model answers (docs/chat.md).
 */
export async function answeringModel(ctx: Context, modelId: string): Promise<AnsweringModel> {
  const entry = ctx.models.find(modelId);
  if (!entry || entry.provider === OFFLINE_PROVIDER || !hasProvider(ctx)) return offlineModel(ctx);
  return { entry, model: await providerModel(ctx, entry.id), offline: false };
}
