import assert from 'node:assert/strict';
import type { Reply, SeededWorkspace, Service } from '../../../test/support/harness.ts';

/** A call to the visitor API (keyless): path relative to /visitor/v1. */
export async function visitorCall(service: Service, method: string, path: string, options: { body?: unknown; token?: string; headers?: Record<string, string> } = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.token !== undefined) headers['x-visitor-token'] = options.token;
  const response = await fetch(`${service.url}/visitor/v1${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: left as text
  }
  return { status: response.status, headers: response.headers, body };
}

export const PRIVACY_URL = 'https://shop.example.com/privacy';

/** Switches the agent's tickets on (with the privacy address they need), plus any other ticket settings. */
export async function enableTickets(service: Service, ws: SeededWorkspace, agentId: string, tickets: Record<string, unknown> = {}): Promise<void> {
  const reply = await service.api('PATCH', `/agents/${agentId}`, { key: ws.keys.manage, body: { tickets: { enabled: true, privacyUrl: PRIVACY_URL, ...tickets } } });
  assert.equal(reply.status, 200, JSON.stringify(reply.body));
}

export async function openTicket(service: Service, agentId: string, body: Record<string, unknown> = {}, token?: string): Promise<{ id: string; number: number }> {
  const reply = await visitorCall(service, 'POST', `/agents/${agentId}/tickets`, { body: { email: 'visitor@example.org', question: 'My order has not arrived.', ...body }, token });
  assert.equal(reply.status, 201, JSON.stringify(reply.body));
  return reply.body.data;
}

/** A visitor's new conversation through the visitor API: its id and visitor token. */
export async function startConversation(service: Service, agentId: string, message = 'Where is my order?'): Promise<{ conversationId: string; token: string }> {
  const reply = await visitorCall(service, 'POST', `/agents/${agentId}/chat`, { body: { message } });
  assert.equal(reply.status, 200, JSON.stringify(reply.body));
  assert.equal(typeof reply.body.data.visitorToken, 'string');
  return { conversationId: reply.body.data.conversationId, token: reply.body.data.visitorToken };
}
