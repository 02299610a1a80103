/** Clients and their reports (spec 2.12, 4.12): one zod schema per request and reply. */
import { z } from 'zod';
import { timestamp } from '../../http/schemas.ts';
import { languageSchema } from '../agents/schemas.ts';

export const MAX_CLIENT_NAME_CHARS = 100;
export const MAX_INTRO_CHARS = 2000;
export const MAX_SIGNATURE_CHARS = 500;
export const MAX_FEE_EUR = 10_000_000;

const notBlank = (value: string) => value.trim().length > 0;
const fee = z
  .number()
  .min(0)
  .max(MAX_FEE_EUR)
  .nullable()
  .describe('euros, rounded to cents; null clears it');

export const clientBody = z.strictObject({
  name: z.string().min(1).max(MAX_CLIENT_NAME_CHARS).refine(notBlank, 'must not be blank').optional().describe("the client's name; needed for a first client"),
  email: z.email().max(254).optional().describe('where the monthly report is mailed; needed for a first client'),
  language: languageSchema.optional().describe("the language of the client's reports and archive; default the agent's language"),
  serviceFeeEur: fee.optional(),
  setupFeeEur: fee.optional(),
  intro: z.string().max(MAX_INTRO_CHARS).optional().describe("the agency's words at the top of each report, up to 2,000 characters"),
  signature: z.string().max(MAX_SIGNATURE_CHARS).optional().describe('how each report is signed, up to 500 characters'),
  reportDay: z.number().int().min(1).max(28).optional().describe('the day of the month the report of the month before is made (1 to 28); default 1'),
  transcripts: z.boolean().optional().describe("attach the month's conversations as a PDF; default false"),
  reportsEnabled: z.boolean().optional().describe('mail a report every month; off for a first client unless true is sent'),
  holdForReview: z.boolean().optional().describe('keep each report for the agency to send; the owner is told it waits; default false'),
});

export const clientSchema = z
  .object({
    name: z.string(),
    email: z.string(),
    language: languageSchema,
    since: timestamp,
    serviceFeeEur: z.number().nullable().optional().describe('only for manage keys'),
    setupFeeEur: z.number().nullable().optional().describe('only for manage keys'),
  })
  .meta({ id: 'Client' });

export const reportSettingsSchema = z
  .object({
    link: z.string().nullable().describe("the client's own link to their archive of reports; null without a client"),
    enabled: z.boolean(),
    day: z.number().int(),
    transcripts: z.boolean(),
    holdForReview: z.boolean(),
    intro: z.string(),
    signature: z.string(),
  })
  .meta({ id: 'ReportSettings' });

export const clientReply = z.object({ client: clientSchema.nullable(), report: reportSettingsSchema }).meta({ id: 'ClientWithReport' });
