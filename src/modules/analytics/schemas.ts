/** GET /agents/{id}/analytics (spec 2.14, 4.13): one zod schema for the query and one for the reply. */
import { z } from 'zod';

const day = z.iso.date().describe('YYYY-MM-DD, a UTC day');

export const analyticsQuery = z.strictObject({
  from: day.optional().describe('first UTC day of the period, inclusive (default: 29 days before to)'),
  to: day.optional().describe('last UTC day of the period, inclusive (default: today)'),
});

const byOpener = z.object({ launcher: z.number().int(), greeting: z.number().int(), nudge: z.number().int() });
const band = z.object({ min: z.number().int(), max: z.number().int(), answers: z.number().int() });

export const seriesDaySchema = z.object({
  date: z.string().describe('YYYY-MM-DD, a UTC day'),
  conversations: z.number().int(),
  questions: z.number().int(),
  answers: z.number().int(),
  helpful: z.number().int(),
  notHelpful: z.number().int(),
  averageConfidence: z.number().nullable(),
  weakAnswers: z.number().int(),
  opened: z.number().int(),
  leads: z.number().int(),
});

export const agentFiguresSchema = z.object({
  from: z.string().describe('first UTC day of the period'),
  to: z.string().describe('last UTC day of the period'),
  conversations: z.number().int(),
  questions: z.number().int(),
  answers: z.number().int(),
  helpful: z.number().int().describe('answers rated 1'),
  notHelpful: z.number().int().describe('answers rated -1'),
  averageConfidence: z.number().nullable().describe('mean confidence of the answers, one decimal; null without answers'),
  weakShare: z.number().nullable().describe('share (0 to 1) of answers that are weak: confidence below 50 or no sources; null without answers'),
  series: z.array(seriesDaySchema).describe('one entry per UTC day of the period, oldest first'),
  bands: z.object({ high: band, medium: band, low: band }).describe('answers per confidence band'),
  topQuestions: z.array(z.object({ text: z.string(), count: z.number().int() })).describe('up to 10 groups of similar questions, most asked first'),
  weakest: z
    .array(
      z.object({
        messageId: z.string(),
        conversationId: z.string(),
        question: z.string().nullable(),
        answer: z.string().describe('the first 200 characters'),
        confidence: z.number().int(),
        createdAt: z.string(),
      }),
    )
    .describe('up to 10 answers not yet corrected, lowest confidence first'),
  widget: z.object({
    opened: z.number().int(),
    conversations: z.number().int(),
    openedBy: byOpener,
    conversationsBy: byOpener,
    leads: z.number().int(),
    leadFormsDeclined: z.number().int(),
    startPages: z.array(z.object({ url: z.string(), title: z.string().nullable(), conversations: z.number().int() })),
  }),
});

export const analyticsSchema = agentFiguresSchema
  .extend({ testConversations: z.number().int().optional().describe('test conversations left out (keys not tied to one agent)') })
  .meta({ id: 'Analytics' });

export type AgentFigures = z.infer<typeof agentFiguresSchema>;
export type Analytics = z.infer<typeof analyticsSchema>;
