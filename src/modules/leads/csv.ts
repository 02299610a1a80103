/**
 * The agent's leads as one CSV file (GET /agents/{id}/leads.csv; docs/visitors.md,
 * "Leads as CSV"): every field of spec 2.10, the form's texts as the visitor saw them,
 * safe to open in a spreadsheet, streamed in batches so a large set never sits in memory.
 */
import { Readable } from 'node:stream';
import type { Context } from '../../context.ts';
import type { Principal } from '../../domain/principal.ts';
import type { Position } from '../../domain/paging.ts';
import { utcDay } from '../../platform/clock.ts';
import { requireAgent } from '../agents/access.ts';
import type { LeadView } from './schemas.ts';
import { leadView } from './service.ts';
import * as store from './store.ts';

/** Leads read per query while the file streams. */
export const CSV_BATCH = 500;

/** The columns, in order: the JSON field names of 2.10, nested ones with a dot. */
export const CSV_COLUMNS: ReadonlyArray<readonly [string, (lead: LeadView) => string | boolean | null]> = [
  ['id', (l) => l.id],
  ['conversationId', (l) => l.conversationId],
  ['name', (l) => l.name],
  ['email', (l) => l.email],
  ['phone', (l) => l.phone],
  ['company', (l) => l.company],
  ['companyDomain', (l) => l.companyDomain],
  ['marketing', (l) => l.marketing],
  ['moment', (l) => l.moment],
  ['page.url', (l) => l.page?.url ?? null],
  ['page.title', (l) => l.page?.title ?? null],
  ['language', (l) => l.language],
  ['shown.intro', (l) => l.shown.intro],
  ['shown.consent', (l) => l.shown.consent],
  ['shown.privacyUrl', (l) => l.shown.privacyUrl],
  ['shown.marketing', (l) => l.shown.marketing],
  ['createdAt', (l) => l.createdAt],
  ['expiresAt', (l) => l.expiresAt],
];

/** Excel reads a file without it as the system's code page. */
const BOM = '\uFEFF';
/** A cell a spreadsheet would take for a formula (or a DDE command) starts with one of these. */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One cell: null is empty, a cell a spreadsheet would run as a formula gets a leading
 * apostrophe (OWASP's CSV injection rule), and a cell holding a comma, quote or line
 * break is quoted with its quotes doubled (RFC 4180).
 */
export function csvCell(value: string | boolean | null): string {
  if (value === null) return '';
  let text = String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function csvLine(cells: Array<string | boolean | null>): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

export interface LeadsCsv {
  fileName: string;
  body: Readable;
}

/**
 * The agent's leads, newest first, as CSV. The first batch is read before anything is
 * sent, so an unknown agent or a refused key is an ordinary error reply; the rest follow
 * batch by batch as the reader takes them, each from where the last ended (the list's
 * keyset), so leads that arrive meanwhile neither repeat nor shift others out.
 */
export async function leadsCsv(ctx: Context, principal: Principal, agentId: string): Promise<LeadsCsv> {
  const agent = await requireAgent(ctx, principal, agentId);
  const now = ctx.clock.now();
  const batch = (after?: Position) => store.listLeads(ctx.db, agent.id, now, CSV_BATCH - 1, after);
  const first = await batch();
  async function* lines(): AsyncGenerator<string> {
    yield BOM + csvLine(CSV_COLUMNS.map(([name]) => name));
    let rows = first;
    while (rows.length > 0) {
      yield rows.map((row) => csvLine(CSV_COLUMNS.map(([, value]) => value(leadView(row))))).join('');
      if (rows.length < CSV_BATCH) return;
      const last = rows[rows.length - 1];
      rows = await batch({ at: last.created_at.toISOString(), id: last.id });
    }
  }
  return { fileName: `leads-${agent.id}-${utcDay(now)}.csv`, body: Readable.from(lines(), { objectMode: false }) };
}
