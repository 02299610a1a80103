/**
 * A local webhook receiver for tests: answers 200, 500, 410, a redirect or too late
 * (after the 5-second acknowledgement time), as told, and checks every delivery's
 * signature with the stripe package's own check (the scheme is Stripe's).
 */
import { EventEmitter, once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import type { Service, SeededWorkspace } from '../../../test/support/harness.ts';

export type Answer = 'ok' | 'fail' | 'gone' | 'redirect' | 'late';

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: string;
  body: any;
  /** stripe.webhooks.constructEvent accepted the delivery with the receiver's secret. */
  verified: boolean;
  answeredWith: Answer;
}

export interface Receiver {
  /** http://127.0.0.1:<port>/hooks/<name> */
  url(name?: string): string;
  answer: Answer;
  /** The signing secret to check with, set once the webhook is made. */
  secret: string;
  received: Received[];
  /** Resolves once `count` requests in all have arrived (whatever was answered). */
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

const stripe = new Stripe('sk_test_receiver');

/** `now` is the service's clock: the signature's t is the attempt's time on it. */
export async function startReceiver(now: () => number): Promise<Receiver> {
  const events = new EventEmitter();
  const sockets = new Set<import('node:net').Socket>();
  const receiver: Receiver = {
    url: (name = 'main') => `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/${name}`,
    answer: 'ok',
    secret: '',
    received: [],
    waitFor: async (count, timeoutMs = 60_000) => {
      const signal = AbortSignal.timeout(timeoutMs);
      while (receiver.received.length < count) {
        await once(events, 'received', { signal }).catch(() => {
          throw new Error(`only ${receiver.received.length} of ${count} deliveries within ${timeoutMs} ms`);
        });
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      if (request.url === '/elsewhere') {
        response.writeHead(200).end();
        receiver.received.push({ path: '/elsewhere', headers: request.headers, raw, body: undefined, verified: false, answeredWith: 'ok' });
        events.emit('received');
        return;
      }
      const answeredWith = receiver.answer;
      receiver.received.push({ path: request.url ?? '', headers: request.headers, raw, body: parse(raw), verified: verify(raw, request.headers, receiver.secret, now()), answeredWith });
      events.emit('received');
      if (answeredWith === 'ok') response.writeHead(200, { 'content-type': 'text/plain' }).end('thanks');
      else if (answeredWith === 'fail') response.writeHead(500).end('down');
      else if (answeredWith === 'gone') response.writeHead(410).end();
      else if (answeredWith === 'redirect') response.writeHead(302, { location: '/elsewhere' }).end();
      else setTimeout(() => response.writeHead(200).end(), 6_000).unref();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return receiver;
}

function parse(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

function verify(raw: string, headers: http.IncomingHttpHeaders, secret: string, receivedAt: number): boolean {
  try {
    stripe.webhooks.constructEvent(raw, String(headers['service-signature']), secret, 300, undefined, receivedAt);
    return true;
  } catch {
    return false;
  }
}

/** A webhook through the API; the receiver is given its secret. */
export async function addWebhook(service: Service, ws: SeededWorkspace, receiver: Receiver, body: Record<string, unknown> = {}, key = ws.keys.manage): Promise<any> {
  const reply = await service.api('POST', '/webhooks', { key, body: { url: receiver.url(), events: ['lead.created', 'ticket.created'], ...body } });
  if (reply.status !== 201) throw new Error(`webhook not added: ${reply.status} ${JSON.stringify(reply.body)}`);
  receiver.secret = reply.body.data.secret;
  return reply.body.data;
}

/** Switches the agent's lead form on (name and e-mail). */
export async function enableLeads(service: Service, ws: SeededWorkspace, agentId: string): Promise<void> {
  const reply = await service.api('PATCH', `/agents/${agentId}`, { key: ws.keys.manage, body: { leadCapture: { enabled: true, privacyUrl: 'https://shop.example.com/privacy' } } });
  if (reply.status !== 200) throw new Error(`lead form not switched on: ${JSON.stringify(reply.body)}`);
}

/** A lead left through the visitor API; its id. */
export async function leaveLead(baseUrl: string, agentId: string, name = 'Lena Vos'): Promise<string> {
  const response = await fetch(`${baseUrl}/visitor/v1/agents/${agentId}/leads`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name, email: 'lena@vos.example.org', moment: 'button' }),
  });
  const body = await response.json();
  if (response.status !== 201) throw new Error(`lead not left: ${response.status} ${JSON.stringify(body)}`);
  return body.data.id;
}
