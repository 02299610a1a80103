/** Calling the visitor API in tests: no key, an optional Origin, token and source address. */
import http from 'node:http';
import type { Reply, Service } from '../../../test/support/harness.ts';

export interface VisitorRequest {
  body?: unknown;
  /** Sent in x-visitor-token. */
  token?: string;
  origin?: string;
  headers?: Record<string, string>;
  /**
   * The local address to send from, such as 127.0.0.7: on Linux every 127.x.y.z is
   * this machine, so one test can be many visitors' addresses.
   */
  from?: string;
}

/** A request to /visitor/v1 + path; a JSON reply is parsed, anything else left as text. */
export function visitorRequest<T = any>(service: Service, method: string, path: string, options: VisitorRequest = {}): Promise<Reply<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers['x-visitor-token'] = options.token;
  if (options.origin !== undefined) headers.origin = options.origin;
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  const url = new URL(`/visitor/v1${path}`, service.url);
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method, headers, localAddress: options.from, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown = text;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          // not JSON: a stream, left as text
        }
        const replyHeaders = new Headers();
        for (const [name, value] of Object.entries(response.headers)) if (value !== undefined) replyHeaders.set(name, String(value));
        resolve({ status: response.statusCode!, headers: replyHeaders, body: parsed as T });
      });
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });
}

export interface VisitorConversation {
  conversationId: string;
  /** The answer's id. */
  messageId: string;
  token: string;
}

/** A visitor's new conversation with the agent (one question and its answer) and its token. */
export async function startVisitorConversation(service: Service, agentId: string, message = 'Hello, what can you help me with?'): Promise<VisitorConversation> {
  const reply = await visitorRequest(service, 'POST', `/agents/${agentId}/chat`, { body: { message } });
  if (reply.status !== 200) throw new Error(`visitor chat failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  const { conversationId, messageId, visitorToken } = reply.body.data;
  return { conversationId, messageId, token: visitorToken };
}

/** A solved proof-of-work challenge of the agent, as the widget sends it in x-visitor-proof (docs/security.md). */
export async function solvedProof(service: Service, agentId: string): Promise<string> {
  const { solveChallenge } = await import('altcha-lib');
  const { deriveKey } = await import('altcha-lib/algorithms/sha');
  const reply = await visitorRequest(service, 'GET', `/agents/${agentId}/challenge`);
  if (reply.status !== 200) throw new Error(`challenge failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  const challenge = reply.body.data;
  const solution = await solveChallenge({ challenge, deriveKey });
  if (!solution) throw new Error('the challenge was not solved');
  return Buffer.from(JSON.stringify({ challenge, solution })).toString('base64');
}
