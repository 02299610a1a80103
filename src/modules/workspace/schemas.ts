import { z } from 'zod';
import { PLAN_IDS } from '../../domain/plans.ts';

export const scopeSchema = z.enum(['read', 'chat', 'manage']);

export const keySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    prefix: z.string().describe('the first characters of the key, to tell keys apart'),
    scope: scopeSchema,
    agentId: z.string().nullable(),
  })
  .meta({ id: 'Key' });

export const workspaceSchema = z
  .object({
    id: z.string().describe('ws_ prefix: the id the operator API and `npx parley admin` take'),
    name: z.string(),
    plan: z.enum(PLAN_IDS),
    language: z.string().describe('default language'),
    agents: z.object({ count: z.number().int(), limit: z.number().int().nullable().describe('null: no limit') }),
    credits: z.object({
      usedThisMonth: z.number().int(),
      included: z.number().int().describe('credits included in the plan each month'),
      purchased: z.number().int().describe('credits bought as packs'),
      overage: z.literal(false).describe('always false: extra credits come only from packs'),
    }),
    storagePerAgentBytes: z.number().int(),
  })
  .meta({ id: 'Workspace' });

export const workspaceReplySchema = z.object({
  data: z.object({ key: keySchema.optional().describe('the calling key; left out for a person signed in to the dashboard'), workspace: workspaceSchema.optional() }),
});

export const modelSchema = z
  .object({
    id: z.string(),
    provider: z.string(),
    creditsPerAnswer: z.number().int(),
    contextSize: z.number().int(),
    available: z.boolean().optional().describe("whether the workspace's plan can use the model; left out for a key tied to one agent unless its scope is manage"),
  })
  .meta({ id: 'Model' });
export type ModelView = z.infer<typeof modelSchema>;
