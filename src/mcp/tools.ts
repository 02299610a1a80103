import type { Context } from '../context.ts';
import type { KeyCaller } from '../domain/principal.ts';
import { requireAgent, requireAgentSettings } from '../modules/agents/access.ts';
import { removeImage, setImage } from '../modules/agents/branding.ts';
import * as agents from '../modules/agents/service.ts';
import { deleteConversation, getConversation, listConversations } from '../modules/chat/conversations.ts';
import { agentAnalytics } from '../modules/analytics/service.ts';
import { correctAnswer } from '../modules/chat/correction.ts';
import { deleteClient, getClient, putClient, rotateReportLink } from '../modules/clients/service.ts';
import { createExport } from '../modules/chat/export.ts';
import { askerOf, exporterOf, keyQuestion } from '../modules/chat/routes.ts';
import { answer } from '../modules/chat/service.ts';
import { cancelLatestCrawl, getLatestCrawl, listLatestCrawlPages } from '../modules/knowledge/crawl/service.ts';
import { createAgentWithWebsite } from '../modules/knowledge/crawl/agent-creation.ts';
import { updateAgentWithMailbox } from '../modules/email-channel/agent-update.ts';
import { sourceView, sourceWithContentView } from '../modules/knowledge/routes.ts';
import { addSource, deleteSource, getSource, listSources, retrain } from '../modules/knowledge/service.ts';
import { deleteLead, getLead, listLeads } from '../modules/leads/service.ts';
import { addNote, changeStatus, getTicket, listTickets } from '../modules/tickets/service.ts';
import { deleteVisitorFile, getVisitorFile } from '../modules/visitor-files/service.ts';
import { getIdentitySecret, rotateIdentitySecret } from '../modules/visitors/identity.ts';
import { describeWorkspace, listModels } from '../modules/workspace/service.ts';
import { setupGuide } from '../modules/workspace/setup-guide.ts';

/** What a tool call hands its handler: the path parameters and the query or body, each parsed by the route's own schema. */
export interface ToolInput {
  params: any;
  payload: any;
}

/** MCP's behaviour hints (spec "Tool annotations"), every one set, so none falls back to MCP's defaults. */
export interface ToolHints {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  /** True where the service fetches an address the caller gives (a website, a file, an image). */
  openWorldHint: boolean;
}

export interface ToolSpec {
  name: string;
  /** The REST operation it is: method and path relative to /api/v1. */
  route: string;
  description: string;
  hints: ToolHints;
  /** For a body that is a union told apart by `type`: this tool is the branch with that type, which it sets itself. */
  variant?: string;
  /** Body fields the tool does not offer (refused as unknown fields). */
  omit?: string[];
  /** REST refuses keys tied to one agent here: such keys are not shown the tool. */
  untiedOnly?: boolean;
  /** The plan feature REST requires (402 below it): keys of a plan without it are not shown the tool. */
  planFeature?: 'clients';
  /** The REST reply body ({ data } or { data, pagination }) for this principal. */
  run(ctx: Context, auth: KeyCaller, input: ToolInput): Promise<unknown>;
}

const read: ToolHints = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const add: ToolHints = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
const fetching: ToolHints = { ...add, openWorldHint: true };
const replace: ToolHints = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };
const erase: ToolHints = replace;

const single = (data: unknown) => ({ data });
const page = (result: { items: unknown[]; nextCursor: string | null }) => ({ data: result.items, pagination: { nextCursor: result.nextCursor } });
const agentOf = (ctx: Context, auth: KeyCaller, input: ToolInput, options?: { active: true }) => requireAgent(ctx, auth, input.params.id, options);

/**
 * One tool per operation of the public API a key may use (spec 1.6, 4.2),
 * without webhooks (spec 1.6) and what is dashboard-only (spec 1.5). Each
 * handler calls the verbs its REST route calls, with the same principal, and
 * builds the same reply. Schemas, scope and audit action come from the route.
 */
export const TOOLS: ToolSpec[] = [
  // ------------------------------------------------------------ workspace
  {
    name: 'get_workspace',
    route: 'GET /workspace',
    description:
      'Describes the API key in use (id, name, scope, the agent it is tied to) and, for a key not tied to one agent, the workspace: plan, agent count and limit, credits used and included. Use it first to learn what this key may do and how much of the plan is left.',
    hints: read,
    run: async (ctx, auth) => single(await describeWorkspace(ctx, auth)),
  },
  {
    name: 'list_models',
    route: 'GET /models',
    description:
      'Lists the answer models an agent can use, with provider, credits per answer, context size and whether the plan includes each. Use it before setting an agent\'s model with update_agent.',
    hints: read,
    run: async (ctx, auth) => ({ data: listModels(ctx, auth), pagination: { nextCursor: null } }),
  },
  {
    name: 'get_setup_guide',
    route: 'GET /setup-guide',
    description:
      'Returns setup presets per use case (general, support, sales, docs): purpose, starter instructions and welcome message, suggested settings, sources to gather and test questions, plus what the plan allows. Use it when creating or tuning an agent; pass useCase for one preset.',
    hints: read,
    run: async (ctx, auth, { payload }) => single(await setupGuide(ctx, auth, payload.useCase)),
  },

  // ------------------------------------------------------------ agents
  {
    name: 'list_agents',
    route: 'GET /agents',
    description:
      'Lists every agent this key can see, oldest first, with all its settings. Use it to find an agent\'s id (ag_…), which almost every other tool needs.',
    hints: read,
    run: async (ctx, auth) => ({ data: await agents.listAgents(ctx, auth), pagination: { nextCursor: null } }),
  },
  {
    name: 'get_agent',
    route: 'GET /agents/:id',
    description:
      'Returns one agent with all its settings: instructions, languages, model, retrieval, allowed origins, branding, lead form, tickets, actions and status. Use it to read the current settings before changing them with update_agent.',
    hints: read,
    run: async (ctx, auth, { params }) => single(await agents.getAgent(ctx, auth, params.id)),
  },
  {
    name: 'create_agent',
    route: 'POST /agents',
    description:
      'Creates a new agent from a name and a use case, optionally with instructions, a welcome message, a language and a website to crawl straight away as its first source. Returns the agent (plus the crawl it started, or why it could not). Costs one agent of the plan\'s allowance.',
    hints: fetching,
    untiedOnly: true,
    run: async (ctx, auth, { payload }) => single(await createAgentWithWebsite(ctx, auth, payload)),
  },
  {
    name: 'update_agent',
    route: 'PATCH /agents/:id',
    description:
      'Changes an agent\'s settings; only the fields sent change (also inside branding, proactive, leadCapture and tickets), while languages, allowedOrigins and actions replace their whole list. Returns the updated agent.',
    hints: replace,
    run: async (ctx, auth, { params, payload }) => single(await updateAgentWithMailbox(ctx, auth, params.id, payload)),
  },
  {
    name: 'delete_agent',
    route: 'DELETE /agents/:id',
    description:
      'Deletes an agent with all its sources, conversations, leads, files and tickets. Irreversible: use it only when the user clearly asked to remove the agent.',
    hints: erase,
    run: async (ctx, auth, { params }) => single(await agents.deleteAgent(ctx, auth, params.id)),
  },
  {
    name: 'set_branding_image',
    route: 'PUT /agents/:id/branding/:image',
    description:
      'Sets the agent\'s logo (chat header) or icon (launcher button) from an https address of a PNG, JPEG, GIF or WebP image of at most 512 KB, replacing the previous one. Returns the agent.',
    hints: { ...replace, openWorldHint: true },
    run: async (ctx, auth, { params, payload }) => single(await setImage(ctx, auth, params.id, params.image, payload.url)),
  },
  {
    name: 'remove_branding_image',
    route: 'DELETE /agents/:id/branding/:image',
    description: 'Removes the agent\'s logo or icon; the widget falls back to its default look. Use it when the user wants the image gone rather than replaced (set_branding_image replaces). Returns the agent.',
    hints: erase,
    run: async (ctx, auth, { params }) => single(await removeImage(ctx, auth, params.id, params.image)),
  },
  {
    name: 'get_embed_snippets',
    route: 'GET /agents/:id/embed',
    description: 'Returns the two install snippets for a website (the script tag of the chat widget and an iframe) and the agent\'s allowed origins. Use it when the user wants to put the agent on a site.',
    hints: read,
    run: async (ctx, auth, { params }) => single(await agents.embedSnippets(ctx, auth, params.id)),
  },
  {
    name: 'get_identity_secret',
    route: 'GET /agents/:id/identity-secret',
    description:
      'Returns the agent\'s identity secret, with which the site\'s server signs a signed-in visitor\'s e-mail address (HMAC-SHA256) so the widget trusts it; it is made on first read. A credential: hand it only to whoever sets up that server.',
    hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    run: async (ctx, auth, { params }) => single(await getIdentitySecret(ctx, auth, params.id)),
  },
  {
    name: 'rotate_identity_secret',
    route: 'POST /agents/:id/identity-secret/rotate',
    description:
      'Replaces the agent\'s identity secret with a new one; hashes made with the old secret stop signing visitors in at once. Use it only when the secret leaked or the user asks, since the site\'s server must then be given the new one. Returns the new secret.',
    hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    run: async (ctx, auth, { params }) => single(await rotateIdentitySecret(ctx, auth, params.id)),
  },

  // ------------------------------------------------------------ sources and crawl
  {
    name: 'list_sources',
    route: 'GET /agents/:id/sources',
    description:
      'Lists the material an agent learns from (website pages, files, texts, Q&A pairs), newest first, 50 a page, with status pending, ready or failed, without content. Pass pagination.nextCursor as cursor for the next page.',
    hints: read,
    run: async (ctx, auth, input) => {
      const result = await listSources(ctx, await agentOf(ctx, auth, input), input.payload);
      return page({ items: result.items.map(sourceView), nextCursor: result.nextCursor });
    },
  },
  {
    name: 'get_source',
    route: 'GET /agents/:id/sources/:sourceId',
    description: 'Returns one source with its full text content and status. Use it to check what the agent was taught or whether a new source is ready.',
    hints: read,
    run: async (ctx, auth, input) => single(sourceWithContentView(await getSource(ctx, await agentOf(ctx, auth, input), input.params.sourceId))),
  },
  ...(
    [
      ['add_text_source', 'text', 'Teaches the agent a text: a title and its content (up to 900,000 characters). Returns the source, pending until learned (usually seconds); poll get_source for ready.', add],
      ['add_qa_source', 'qa', 'Teaches the agent one question and the answer it should give. Returns the source, pending until learned (usually seconds). Use it for a precise answer the agent must give.', add],
      [
        'add_file_source',
        'file',
        'Teaches the agent a file fetched from an address: PDF, Word (.docx), Markdown or plain text, within 20 seconds and the plan\'s storage. Returns the source, pending until read; poll get_source for ready or failed.',
        fetching,
      ],
      [
        'add_website_source',
        'website',
        'Starts a crawl of a website from an address (following links, the sitemap, or a single page); each page read becomes a source. Returns the crawl; follow it with get_crawl.',
        fetching,
      ],
    ] as const
  ).map(
    ([name, variant, description, hints]): ToolSpec => ({
      name,
      route: 'POST /agents/:id/sources',
      description,
      hints,
      variant,
      run: async (ctx, auth, input) => {
        const added = await addSource(ctx, await agentOf(ctx, auth, input, { active: true }), auth.plan, input.payload);
        return single(added.kind === 'crawl' ? added.crawl : sourceView(added.source));
      },
    }),
  ),
  {
    name: 'delete_source',
    route: 'DELETE /agents/:id/sources/:sourceId',
    description: 'Deletes one source and everything the agent learned from it; answers no longer draw on it. Use it for outdated or wrong material (to fix one answer, correct_answer is lighter). Irreversible; returns the id with deleted true.',
    hints: erase,
    run: async (ctx, auth, input) => {
      await deleteSource(ctx, await agentOf(ctx, auth, input), input.params.sourceId);
      return single({ id: input.params.sourceId, deleted: true });
    },
  },
  {
    name: 'get_crawl',
    route: 'GET /agents/:id/crawl',
    description:
      'Returns the progress of the agent\'s latest website crawl: status (queued, running, completed, failed, cancelled), pages processed, discovered, pending and failed, and why it stopped early. Use it after add_website_source or create_agent with a website to see when the pages are in.',
    hints: read,
    run: async (ctx, auth, input) => single(await getLatestCrawl(ctx, await agentOf(ctx, auth, input))),
  },
  {
    name: 'list_crawl_pages',
    route: 'GET /agents/:id/crawl/pages',
    description:
      'Lists the pages of the agent\'s latest crawl with what became of each; with status turned_away only the pages not kept, each with its reason (too little text, a duplicate, excluded, …). Use it when a page the user expects is missing from the sources. Pass pagination.nextCursor as cursor for the next page.',
    hints: read,
    run: async (ctx, auth, input) => page(await listLatestCrawlPages(ctx, await agentOf(ctx, auth, input), input.payload)),
  },
  {
    name: 'stop_crawl',
    route: 'DELETE /agents/:id/crawl',
    description: 'Stops the agent\'s latest crawl while it is queued or running; pages already read stay as sources. Gives not_found when no crawl is under way.',
    hints: erase,
    run: async (ctx, auth, input) => single(await cancelLatestCrawl(ctx, await agentOf(ctx, auth, input))),
  },
  {
    name: 'retrain_agent',
    route: 'POST /agents/:id/retrain',
    description:
      'Makes the agent read every source again from what was stored (websites are not fetched again), at no credit cost; sources return to pending for a few minutes. At most 10 a day per agent; refused while something is being learned.',
    hints: add,
    run: async (ctx, auth, input) => single(await retrain(ctx, await agentOf(ctx, auth, input, { active: true }))),
  },

  // ------------------------------------------------------------ answers and conversations
  {
    name: 'ask_agent',
    route: 'POST /agents/:id/chat',
    description:
      'Asks an agent a question and returns its answer with confidence (0 to 100), grounding, the sources used and the credits spent; the conversation is recorded with channel api. Pass conversationId from an earlier answer to continue that conversation.',
    hints: add,
    omit: ['stream'],
    run: async (ctx, auth, input) => single(await answer(ctx, askerOf(auth), await requireAgentSettings(ctx, auth, input.params.id, { active: true }), keyQuestion(input.payload))),
  },
  {
    name: 'list_conversations',
    route: 'GET /agents/:id/conversations',
    description:
      'Lists an agent\'s conversations, newest first, 50 a page, with channel, first message, message count and last confidence; filter by channel, by a from/to day (YYYY-MM-DD) of the last message, by the confidence band of an answer or feedback, and by words in the messages (q). Use get_conversation for the messages.',
    hints: read,
    run: async (ctx, auth, input) => page(await listConversations(ctx, askerOf(auth), await agentOf(ctx, auth, input), input.payload)),
  },
  {
    name: 'get_conversation',
    route: 'GET /agents/:id/conversations/:conversationId',
    description:
      'Returns one conversation with all its messages: questions with their page and files, answers with confidence, grounding, sources, feedback and model. Use it to read what a visitor asked and how the agent answered, or to find an answer\'s id for correct_answer.',
    hints: read,
    run: async (ctx, auth, input) => single(await getConversation(ctx, askerOf(auth), await agentOf(ctx, auth, input), input.params.conversationId)),
  },
  {
    name: 'delete_conversation',
    route: 'DELETE /agents/:id/conversations/:conversationId',
    description: 'Erases a conversation with its messages, its lead and its ticket (for example on a visitor\'s request); the month\'s usage stays. Irreversible.',
    hints: erase,
    run: async (ctx, auth, input) => single(await deleteConversation(ctx, askerOf(auth), await agentOf(ctx, auth, input), input.params.conversationId)),
  },
  {
    name: 'export_conversations',
    route: 'GET /agents/:id/conversations/export',
    description:
      'Makes a download link to a PDF of the conversations of a period (default the last 30 days, at most the 500 most recent), optionally of one channel. The link works without a key for 15 minutes: give it to the user, it is a credential.',
    hints: add,
    run: async (ctx, auth, input) => single(await createExport(ctx, exporterOf(auth), await agentOf(ctx, auth, input), input.payload)),
  },
  {
    name: 'correct_answer',
    route: 'POST /agents/:id/messages/:messageId/correction',
    description:
      'Corrects one answer (messageId is the answer\'s id from get_conversation) with the question and what the answer should have said; this becomes a Q&A source the agent learns. Once per answer; the conversation itself is not changed.',
    hints: add,
    run: async (ctx, auth, input) => {
      const agent = await agentOf(ctx, auth, input, { active: true });
      return single(sourceView(await correctAnswer(ctx, askerOf(auth), agent, input.params.messageId, input.payload)));
    },
  },

  // ------------------------------------------------------------ visitor files
  {
    name: 'get_visitor_file',
    route: 'GET /agents/:id/visitor-files/:fileId',
    description: 'Returns a file a visitor sent in the chat (an attachment id from get_conversation) with the text the agent read from it (kept 30 days). Reading it is recorded in the audit trail.',
    hints: read,
    run: async (ctx, auth, { params }) => single(await getVisitorFile(ctx, auth, params.id, params.fileId)),
  },
  {
    name: 'delete_visitor_file',
    route: 'DELETE /agents/:id/visitor-files/:fileId',
    description: 'Erases a file a visitor sent and its text, for example on the visitor\'s request; the conversation stays. Irreversible; returns the id with deleted true.',
    hints: erase,
    run: async (ctx, auth, { params }) => single(await deleteVisitorFile(ctx, auth, params.id, params.fileId)),
  },

  // ------------------------------------------------------------ leads
  {
    name: 'list_leads',
    route: 'GET /agents/:id/leads',
    description: 'Lists the contact details visitors left in the agent\'s lead form, newest first: name, e-mail, phone, company, marketing consent, page and conversation. Pass pagination.nextCursor as cursor for more.',
    hints: read,
    run: async (ctx, auth, { params, payload }) => page(await listLeads(ctx, auth, params.id, payload)),
  },
  {
    name: 'get_lead',
    route: 'GET /agents/:id/leads/:leadId',
    description:
      'Returns one lead with what the visitor was shown when leaving it (intro, consent text, privacy address) and when it will be deleted. Use it to check what a visitor agreed to before contacting them.',
    hints: read,
    run: async (ctx, auth, { params }) => single(await getLead(ctx, auth, params.id, params.leadId)),
  },
  {
    name: 'delete_lead',
    route: 'DELETE /agents/:id/leads/:leadId',
    description: 'Erases one lead (for example on the visitor\'s request); its conversation stays. Irreversible; returns the id with deleted true.',
    hints: erase,
    run: async (ctx, auth, { params }) => single(await deleteLead(ctx, auth, params.id, params.leadId)),
  },

  // ------------------------------------------------------------ tickets
  {
    name: 'list_tickets',
    route: 'GET /agents/:id/tickets',
    description: 'Lists the support tickets visitors opened with the agent, most recent activity first, optionally only open, waiting or solved ones. Use get_ticket for the replies and notes.',
    hints: read,
    run: async (ctx, auth, { params, payload }) => {
      const result = await listTickets(ctx, auth, params.id, payload);
      return { ...page(result), counts: result.counts };
    },
  },
  {
    name: 'get_ticket',
    route: 'GET /agents/:id/tickets/:ticketId',
    description:
      'Returns one ticket with its question and all its entries, oldest first: visitor replies, team replies, internal notes and held mails. Use it to read a ticket\'s history before changing its status or adding a note.',
    hints: read,
    run: async (ctx, auth, { params }) => single(await getTicket(ctx, auth, params.id, params.ticketId)),
  },
  {
    name: 'update_ticket_status',
    route: 'PATCH /agents/:id/tickets/:ticketId',
    description:
      'Sets a ticket\'s status to open, waiting or solved; nothing is mailed to the visitor. Use it to track where a ticket stands; a solved ticket is deleted after its expiry. Returns the ticket.',
    hints: replace,
    run: async (ctx, auth, { params, payload }) => single(await changeStatus(ctx, auth, params.id, params.ticketId, payload.status)),
  },
  {
    name: 'add_ticket_note',
    route: 'POST /agents/:id/tickets/:ticketId/notes',
    description:
      'Adds a note to a ticket that only the team sees (up to 10,000 characters); the visitor is not mailed. Use it to record what was done or decided; replying to the visitor is done in the dashboard. Returns the note.',
    hints: add,
    run: async (ctx, auth, { params, payload }) => single(await addNote(ctx, auth, params.id, params.ticketId, payload.body)),
  },

  // ------------------------------------------------------------ clients (agency plan and up; not for keys tied to one agent)
  {
    name: 'get_client',
    route: 'GET /agents/:id/client',
    description:
      'Returns the client an agency runs this agent for (name, e-mail, language, since; the fees only for a manage key), or client null, and the monthly report settings with the client\'s archive link. Use it before changing the client or its reports.',
    hints: read,
    untiedOnly: true,
    planFeature: 'clients',
    run: async (ctx, auth, { params }) => single(await getClient(ctx, auth, params.id)),
  },
  {
    name: 'set_client',
    route: 'PUT /agents/:id/client',
    description:
      'Records the agent\'s client or changes it: any of name, email, language, fees, intro, signature, reportDay (1 to 28), transcripts, reportsEnabled and holdForReview; omitted fields stay. A first client needs name and email, and its monthly reports stay off unless reportsEnabled is true. Returns what get_client returns.',
    hints: replace,
    untiedOnly: true,
    planFeature: 'clients',
    run: async (ctx, auth, { params, payload }) => single(await putClient(ctx, auth, params.id, payload)),
  },
  {
    name: 'remove_client',
    route: 'DELETE /agents/:id/client',
    description:
      'Takes the client off the agent: its archive link stops at once and no more reports are made; the agent and its conversations stay. Use it when the agency no longer runs the agent for that client.',
    hints: erase,
    untiedOnly: true,
    planFeature: 'clients',
    run: async (ctx, auth, { params }) => single(await deleteClient(ctx, auth, params.id)),
  },
  {
    name: 'new_report_link',
    route: 'POST /agents/:id/client/report-link',
    description:
      'Makes a new link to the client\'s report archive; the old link stops at once, also in reports already sent. Use it when a link was shared too widely. Returns the client with the new report.link.',
    hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    untiedOnly: true,
    planFeature: 'clients',
    run: async (ctx, auth, { params }) => single(await rotateReportLink(ctx, auth, params.id)),
  },

  // ------------------------------------------------------------ analytics
  {
    name: 'get_analytics',
    route: 'GET /agents/:id/analytics',
    description:
      'Returns an agent\'s figures for a period of UTC days (from and to as YYYY-MM-DD, default the last 30 days, at most 366): conversations, questions, feedback, average confidence, the share of weak answers, a series per day, confidence bands, top questions, the weakest answers worth a correction, and the widget\'s figures. Test conversations are left out.',
    hints: read,
    run: async (ctx, auth, { params, payload }) => single(await agentAnalytics(ctx, auth, params.id, payload)),
  },
];
