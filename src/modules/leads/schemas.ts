/** Leads (spec 2.10, 4.10; the visitor API's POST leads): one zod schema per request and reply. */
import { z } from 'zod';
import { timestamp } from '../../http/schemas.ts';
import { isOneLine, ONE_LINE_MESSAGE } from '../../domain/text.ts';
import { pageQuery } from '../../domain/paging.ts';
import { MOMENTS } from './store.ts';

export const MAX_NAME_CHARS = 100;
export const MAX_EMAIL_CHARS = 254;
export const MAX_PHONE_CHARS = 40;
export const MAX_COMPANY_CHARS = 100;

/** A one-line form field the visitor may leave empty: an empty text or null is "left empty". */
const formText = (max: number, what: string) => z.string().max(max).refine(isOneLine, ONE_LINE_MESSAGE).nullish().describe(what);

export const createLeadBody = z.strictObject({
  conversationId: z.string().max(100).optional().describe('the conversation the form was shown in; needs its x-visitor-token'),
  name: formText(MAX_NAME_CHARS, 'up to 100 characters'),
  email: formText(MAX_EMAIL_CHARS, 'an e-mail address, up to 254 characters'),
  phone: formText(MAX_PHONE_CHARS, 'a phone number: digits with spaces, +, -, ., / or brackets'),
  company: formText(MAX_COMPANY_CHARS, 'up to 100 characters'),
  marketing: z.boolean().optional().describe('the visitor ticked the news-and-offers box (only when the form has one)'),
  moment: z.enum(MOMENTS).describe('what brought up the form: before the chat, after some questions, after a weak answer, or a button'),
  page: z.strictObject({ url: z.string().max(2000) }).optional().describe('the page the visitor is on'),
  language: z.string().max(35).optional().describe("the widget's language (one of the agent's languages; otherwise the agent's language is recorded)"),
});
export type CreateLeadInput = z.infer<typeof createLeadBody>;

export const createdLeadSchema = z.object({ id: z.string() });

export const leadSchema = z
  .object({
    id: z.string().describe('lead_ prefix'),
    conversationId: z.string().nullable(),
    name: z.string().nullable(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    company: z.string().nullable().describe('null when not asked or left empty'),
    companyDomain: z.string().nullable().describe("the e-mail's domain; null for an address at a mailbox provider"),
    marketing: z.boolean().describe('the visitor ticked the news-and-offers box'),
    moment: z.enum(MOMENTS),
    page: z.object({ url: z.string(), title: z.string().nullable() }).nullable().describe("title is the page's name when the agent knows it as a source"),
    language: z.string(),
    shown: z
      .object({
        intro: z.string(),
        consent: z.string(),
        privacyUrl: z.string().nullable(),
        marketing: z.string().nullable().describe("the marketing box's label; null when there was no box"),
      })
      .describe('what the form showed'),
    createdAt: timestamp,
    expiresAt: timestamp.describe('when the lead is deleted unless deleted sooner'),
  })
  .meta({ id: 'Lead' });
export type LeadView = z.infer<typeof leadSchema>;

export const leadParams = z.strictObject({ id: z.string().max(100), leadId: z.string().max(100) });
export const leadListQuery = z.strictObject(pageQuery);
export const visitorAgentParams = z.strictObject({ agentId: z.string().max(100) });
