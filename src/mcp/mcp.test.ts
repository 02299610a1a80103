import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startService, type SeededWorkspace, type Service } from '../../test/support/harness.ts';
import { serve, startServer, waitForSource } from '../modules/knowledge/test-support.ts';
import { TINY_PICTURES } from '../modules/visitor-files/test-support.ts';
import { enableTickets, openTicket, startConversation } from '../modules/tickets/test-support.ts';
import { enableLeads, leaveLead } from '../modules/webhooks/test-support.ts';
import { TOOLS } from './tools.ts';
import { connect, type McpSession } from './test-support.ts';


describe('MCP tools (spec 1.6): each API operation as a tool, answering as REST does', () => {
  let service: Service;
  let ws: SeededWorkspace;
  let files: Awaited<ReturnType<typeof startServer>>;
  let mcp: McpSession;
  const called = new Set<string>();

  before(async () => {
    service = await startService({ env: { PARLEY_RATE_LIMIT_PER_MINUTE: '100000', PARLEY_ALLOW_PRIVATE_URLS: '1' } });
    ws = await service.seedWorkspace({ plan: 'enterprise' });
    files = await startServer({
      '/returns.txt': serve('Returns are free within 30 days. Send the bike back in its box.', 'text/plain'),
      '/site/': serve('<html><head><title>Opening hours</title></head><body><p>The shop opens at nine every weekday and at ten on Saturdays; it is closed on Sundays.</p></body></html>', 'text/html'),
      '/logo.gif': serve(TINY_PICTURES.gif, 'image/gif'),
    });
    mcp = await connect(service, ws.keys.manage);
  });
  after(async () => {
    await mcp?.close();
    await files?.close();
    await service?.close();
  });

  /** A successful tool call, counted towards "every tool was called". */
  async function ok(name: string, args: Record<string, unknown> = {}): Promise<any> {
    called.add(name);
    return mcp.ok(name, args);
  }

  /** The REST reply of the same operation with the same key. */
  async function rest(method: string, path: string, body?: unknown): Promise<any> {
    const reply = await service.api(method, path, { key: ws.keys.manage, body });
    assert.ok(reply.status < 300, `${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
    return reply.body;
  }

  test('tools/list: one tool per operation, none about webhooks, each described, annotated and with object schemas', async () => {
    const { tools } = await mcp.client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), TOOLS.map((tool) => tool.name).sort());
    assert.ok(!tools.some((tool) => /webhook/i.test(`${tool.name} ${tool.description}`)), 'no tool is about webhooks');
    for (const tool of tools) {
      assert.match(tool.name, /^[a-z]+(_[a-z]+)*$/);
      assert.ok((tool.description ?? '').length > 60, `${tool.name} is described for a model`);
      assert.equal(tool.inputSchema.type, 'object');
      assert.equal(tool.outputSchema?.type, 'object');
      const hints = tool.annotations!;
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) assert.equal(typeof hints[hint], 'boolean', `${tool.name}.${hint}`);
      if (hints.readOnlyHint) assert.equal(hints.destructiveHint, false);
    }
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    assert.equal(byName.list_leads!.annotations!.readOnlyHint, true);
    assert.equal(byName.delete_agent!.annotations!.destructiveHint, true);
    assert.equal(byName.ask_agent!.annotations!.readOnlyHint, false);
    // The input is the route's own: path parameters plus the query or body fields, strict like REST.
    assert.deepEqual(Object.keys((byName.list_conversations!.inputSchema as any).properties).sort(), ['channel', 'confidence', 'cursor', 'feedback', 'from', 'id', 'limit', 'q', 'to']);
    assert.equal((byName.create_agent!.inputSchema as any).additionalProperties, false);
    assert.deepEqual((byName.create_agent!.inputSchema as any).required.sort(), ['name', 'useCase']);
    assert.ok(!('stream' in (byName.ask_agent!.inputSchema as any).properties), 'ask_agent answers in one piece');
    assert.deepEqual(Object.keys((byName.add_qa_source!.inputSchema as any).properties).sort(), ['answer', 'id', 'question']);
  });

  test('annotations agree with what each operation does: only reads are read-only, removals and overwrites are destructive, fetching is open-world', async () => {
    const { tools } = await mcp.client.listTools();
    for (const spec of TOOLS) {
      const hints = tools.find((tool) => tool.name === spec.name)!.annotations!;
      const method = spec.route.split(' ')[0];
      const fields = Object.keys(tools.find((tool) => tool.name === spec.name)!.inputSchema.properties ?? {});
      if (hints.readOnlyHint) {
        assert.equal(method, 'GET', `${spec.name}: a read-only tool is a GET`);
        assert.deepEqual([hints.destructiveHint, hints.idempotentHint, hints.openWorldHint], [false, true, false], `${spec.name}: a read changes and fetches nothing`);
      }
      if (method !== 'GET') assert.equal(hints.readOnlyHint, false, `${spec.name}: ${method} changes something`);
      if (method === 'DELETE' || method === 'PUT' || method === 'PATCH') assert.equal(hints.destructiveHint, true, `${spec.name}: ${method} removes or overwrites`);
      // Parley fetches an address given as url (a file, a website, an image) or as create_agent's website.
      assert.equal(hints.openWorldHint, fields.includes('url') || fields.includes('website'), `${spec.name}: openWorldHint`);
    }
    // The two reads that make something: the identity secret on first read, and an export link (a credential).
    const makers = tools.filter((tool) => !tool.annotations!.readOnlyHint && TOOLS.find((spec) => spec.name === tool.name)!.route.startsWith('GET '));
    assert.deepEqual(makers.map((tool) => tool.name).sort(), ['export_conversations', 'get_identity_secret']);
  });

  test('workspace, models and setup guide: the REST replies', async () => {
    assert.deepEqual(await ok('get_workspace'), await rest('GET', '/workspace'));
    assert.deepEqual(await ok('list_models'), await rest('GET', '/models'));
    assert.deepEqual(await ok('get_setup_guide', { useCase: 'support' }), await rest('GET', '/setup-guide?useCase=support'));
  });

  test('every tool, in the order a person would use them, replies as its REST operation', async () => {
    // Agents
    const created = await ok('create_agent', { name: 'Bike shop', useCase: 'support', instructions: 'Answer about the bike shop.' });
    const agent = created.data.id as string;
    assert.match(agent, /^ag_/);
    assert.deepEqual(await ok('get_agent', { id: agent }), await rest('GET', `/agents/${agent}`));
    assert.deepEqual(await ok('list_agents'), await rest('GET', '/agents'));
    const updated = await ok('update_agent', { id: agent, attachmentsEnabled: true, welcomeMessage: 'Hello from the shop' });
    assert.equal(updated.data.welcomeMessage, 'Hello from the shop');
    assert.deepEqual(updated, await rest('GET', `/agents/${agent}`));
    const logo = await ok('set_branding_image', { id: agent, image: 'logo', url: `${files.url}/logo.gif` });
    assert.ok(JSON.stringify(logo.data.branding).includes(`/assets/agents/${agent}/logo`), JSON.stringify(logo.data.branding));
    const removed = await ok('remove_branding_image', { id: agent, image: 'logo' });
    assert.ok(!JSON.stringify(removed.data.branding).includes(`/assets/agents/${agent}/logo`));
    assert.deepEqual(await ok('get_embed_snippets', { id: agent }), await rest('GET', `/agents/${agent}/embed`));
    const secret = await ok('get_identity_secret', { id: agent });
    const rotated = await ok('rotate_identity_secret', { id: agent });
    assert.notDeepEqual(rotated.data, secret.data);

    // Sources, retrain, crawl
    const text = await ok('add_text_source', { id: agent, title: 'Repairs', content: 'We repair electric bikes within two working days. A check-up costs 40 euros.' });
    assert.equal(text.data.type, 'text');
    assert.equal(text.data.status, 'pending');
    const qa = await ok('add_qa_source', { id: agent, question: 'Do you sell helmets?', answer: 'Yes, from 30 euros.' });
    assert.equal(qa.data.type, 'qa');
    await waitForSource(service, ws.keys.manage, agent, text.data.id);
    await waitForSource(service, ws.keys.manage, agent, qa.data.id);
    assert.deepEqual(await ok('get_source', { id: agent, sourceId: text.data.id }), await rest('GET', `/agents/${agent}/sources/${text.data.id}`));
    const retrained = await ok('retrain_agent', { id: agent });
    assert.deepEqual({ queued: retrained.data.queued, sourceCount: retrained.data.sourceCount }, { queued: true, sourceCount: 2 });
    await waitForSource(service, ws.keys.manage, agent, text.data.id);
    await waitForSource(service, ws.keys.manage, agent, qa.data.id);
    const file = await ok('add_file_source', { id: agent, url: `${files.url}/returns.txt`, name: 'Returns' });
    assert.equal(file.data.type, 'file');
    assert.equal((await waitForSource(service, ws.keys.manage, agent, file.data.id)).status, 'ready');
    const crawl = await ok('add_website_source', { id: agent, url: `${files.url}/site/`, mode: 'single' });
    assert.match(crawl.data.id, /.+/);
    assert.ok(['queued', 'running', 'completed'].includes(crawl.data.status), crawl.data.status);
    const progress = await ok('get_crawl', { id: agent });
    assert.equal(progress.data.id, crawl.data.id);
    const pages = await ok('list_crawl_pages', { id: agent, status: 'turned_away' });
    assert.ok(Array.isArray(pages.data), JSON.stringify(pages));
    called.add('stop_crawl');
    const stopped = await mcp.call('stop_crawl', { id: agent });
    if (stopped.isError) assert.match((stopped.content[0] as { text: string }).text, /"code":"not_found"/, 'the crawl had ended already');
    else assert.deepEqual((stopped.structuredContent as any).data.cancelled, true);
    assert.deepEqual(await ok('list_sources', { id: agent, limit: 2 }), await rest('GET', `/agents/${agent}/sources?limit=2`));

    // Answers and conversations
    const asked = await ok('ask_agent', { id: agent, message: 'How long does a repair of an electric bike take?' });
    assert.deepEqual(Object.keys(asked.data).sort(), ['answer', 'confidence', 'conversationId', 'credits', 'grounding', 'messageId', 'model', 'sources']);
    const conversation = await ok('get_conversation', { id: agent, conversationId: asked.data.conversationId });
    assert.equal(conversation.data.channel, 'api', 'asked through MCP, the conversation shows channel api');
    assert.deepEqual(conversation, await rest('GET', `/agents/${agent}/conversations/${asked.data.conversationId}`));
    assert.deepEqual(await ok('list_conversations', { id: agent, channel: 'api' }), await rest('GET', `/agents/${agent}/conversations?channel=api`));
    const correction = await ok('correct_answer', { id: agent, messageId: asked.data.messageId, question: 'How long does a repair take?', answer: 'Two working days.' });
    assert.equal(correction.data.type, 'qa');
    const exported = await ok('export_conversations', { id: agent });
    assert.ok(exported.data.url.startsWith('http'), exported.data.url);
    assert.ok(!Number.isNaN(Date.parse(exported.data.expiresAt)));

    // A visitor's file, lead and ticket
    const visitor = await startConversation(service, agent, 'Can I send you my invoice?');
    const form = new FormData();
    form.append('conversationId', visitor.conversationId);
    form.append('file', new Blob([new TextEncoder().encode('Invoice 42: one city bike, 600 euros.')]), 'invoice.txt');
    const upload = await fetch(`${service.url}/visitor/v1/agents/${agent}/files`, { method: 'POST', body: form, headers: { 'x-visitor-token': visitor.token } });
    const uploaded = (await upload.json()) as any;
    assert.equal(upload.status, 201, JSON.stringify(uploaded));
    const visitorFile = await ok('get_visitor_file', { id: agent, fileId: uploaded.data.id });
    assert.equal(visitorFile.data.conversationId, visitor.conversationId);
    assert.deepEqual(visitorFile, await rest('GET', `/agents/${agent}/visitor-files/${uploaded.data.id}`));
    assert.deepEqual((await ok('delete_visitor_file', { id: agent, fileId: uploaded.data.id })).data, { id: uploaded.data.id, deleted: true });

    await enableLeads(service, ws, agent);
    const leadId = await leaveLead(service.url, agent);
    assert.deepEqual(await ok('list_leads', { id: agent }), await rest('GET', `/agents/${agent}/leads`));
    assert.deepEqual(await ok('get_lead', { id: agent, leadId }), await rest('GET', `/agents/${agent}/leads/${leadId}`));
    assert.deepEqual((await ok('delete_lead', { id: agent, leadId })).data, { id: leadId, deleted: true });

    await enableTickets(service, ws, agent);
    const ticket = await openTicket(service, agent);
    assert.deepEqual(await ok('list_tickets', { id: agent, status: 'open' }), await rest('GET', `/agents/${agent}/tickets?status=open`));
    const waiting = await ok('update_ticket_status', { id: agent, ticketId: ticket.id, status: 'waiting' });
    assert.equal(waiting.data.status, 'waiting');
    const note = await ok('add_ticket_note', { id: agent, ticketId: ticket.id, body: 'Called the customer.' });
    assert.equal(note.data.kind, 'note');
    assert.deepEqual(await ok('get_ticket', { id: agent, ticketId: ticket.id }), await rest('GET', `/agents/${agent}/tickets/${ticket.id}`));

    // Clients and analytics (an enterprise workspace: clients are in its plan)
    const client = await ok('set_client', { id: agent, name: 'Bakery Jansen', email: 'owner@bakery.example', language: 'nl', reportDay: 3 });
    assert.equal(client.data.client.name, 'Bakery Jansen');
    assert.equal(client.data.report.enabled, false, 'a first client gets no reports unless asked');
    assert.deepEqual(await ok('get_client', { id: agent }), await rest('GET', `/agents/${agent}/client`));
    const newLink = await ok('new_report_link', { id: agent });
    assert.notEqual(newLink.data.report.link, client.data.report.link);
    const today = new Date().toISOString().slice(0, 10);
    assert.deepEqual(await ok('get_analytics', { id: agent, from: today, to: today }), await rest('GET', `/agents/${agent}/analytics?from=${today}&to=${today}`));
    const clientRemoved = await ok('remove_client', { id: agent });
    assert.equal(clientRemoved.data.client, null);

    // Erasing
    assert.deepEqual((await ok('delete_conversation', { id: agent, conversationId: asked.data.conversationId })).data, { id: asked.data.conversationId, deleted: true });
    assert.deepEqual((await ok('delete_source', { id: agent, sourceId: qa.data.id })).data, { id: qa.data.id, deleted: true });
    assert.deepEqual((await ok('delete_agent', { id: agent })).data, { id: agent, deleted: true });
    assert.equal((await service.api('GET', `/agents/${agent}`, { key: ws.keys.manage })).status, 404);
  });

  test('every tool was called', () => {
    assert.deepEqual([...called].sort(), TOOLS.map((tool) => tool.name).sort());
  });

  test('refusals are tool errors with the spec codes and the REST messages and details', async () => {
    const missing = await mcp.refused('get_agent', { id: 'ag_doesnotexist' });
    const restMissing = await service.api('GET', '/agents/ag_doesnotexist', { key: ws.keys.manage });
    assert.deepEqual(missing, restMissing.body.error);
    assert.equal(missing.code, 'not_found');

    const invalid = await mcp.refused('create_agent', { name: '', useCase: 'support', colour: 'red' });
    const restInvalid = await service.api('POST', '/agents', { key: ws.keys.manage, body: { name: '', useCase: 'support', colour: 'red' } });
    assert.equal(invalid.code, 'invalid_request');
    assert.deepEqual(invalid.details, restInvalid.body.error.details);
    assert.ok(invalid.details.some((detail) => detail.field === 'colour' && detail.message === 'unknown field'));

    const required = await mcp.refused('list_leads', {});
    assert.deepEqual(required.details, [{ field: 'id', message: 'required' }]);
    const nul = await mcp.refused('add_text_source', { id: 'ag_x', title: 'a\u0000b', content: 'c' });
    assert.deepEqual(nul.details.map((detail) => detail.field), ['title']);
    const streamed = await mcp.refused('ask_agent', { id: 'ag_x', message: 'hi', stream: true });
    assert.deepEqual(streamed.details, [{ field: 'stream', message: 'unknown field' }]);

    const agent = (await ok('create_agent', { name: 'Setup', useCase: 'general' })).data.id;
    const highRisk = await mcp.refused('get_setup_guide', { useCase: 'nonsense' });
    assert.equal(highRisk.code, 'invalid_request');
    const noCrawl = await mcp.refused('stop_crawl', { id: agent });
    assert.deepEqual(noCrawl, (await service.api('DELETE', `/agents/${agent}/crawl`, { key: ws.keys.manage })).body.error);

    await assert.rejects(mcp.client.callTool({ name: 'add_webhook', arguments: {} }), /Unknown tool: add_webhook/);
  });
});
