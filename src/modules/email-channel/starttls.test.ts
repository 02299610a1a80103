import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import nodemailer from 'nodemailer';
import { startService, type SeededWorkspace, type Service } from '../../../test/support/harness.ts';
import { seedAgent } from '../../../test/support/seed-agent.ts';
import { seedTexts } from '../chat/test-support.ts';
import { startSmtpCapture, type SmtpCapture } from '../mail/test-support.ts';
import { startMailInbound, type MailInbound } from './inbound.ts';
import { enableEmail, testResolver } from './test-support.ts';
import { mailTls, selfSigned } from './tls.ts';

const AGENT_ADDRESS = 'help@tls.example';

/** Reads SMTP replies line by line until a final line (code and space). */
function replyOf(socket: Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      if (/^\d{3} .*\r\n$/m.test(text.split('\r\n').slice(-2).join('\r\n'))) {
        socket.off('data', onData);
        resolve(text);
      }
    };
    socket.on('data', onData);
    socket.once('error', reject);
  });
}

/** What the server says to EHLO, and (when it offers STARTTLS) the certificate it shows after the upgrade. */
async function ehloAndUpgrade(port: number): Promise<{ ehlo: string; certificate?: X509Certificate }> {
  const socket = connect(port, '127.0.0.1');
  await replyOf(socket);
  socket.write('EHLO client.example\r\n');
  const ehlo = await replyOf(socket);
  if (!/STARTTLS/.test(ehlo)) {
    socket.end('QUIT\r\n');
    return { ehlo };
  }
  socket.write('STARTTLS\r\n');
  assert.match(await replyOf(socket), /^220 /);
  const secure = tls.connect({ socket, rejectUnauthorized: false, servername: 'parley.example.net' });
  await new Promise<void>((resolve, reject) => secure.once('secureConnect', () => resolve()).once('error', reject));
  const certificate = secure.getPeerX509Certificate();
  secure.destroy();
  return { ehlo, certificate };
}

describe('STARTTLS on the inbound port', () => {
  let smtp: SmtpCapture;
  let service: Service;
  let ws: SeededWorkspace;
  let dir: string;
  const servers: MailInbound[] = [];

  before(async () => {
    smtp = await startSmtpCapture();
    dir = await mkdtemp(path.join(os.tmpdir(), 'parley-tls-'));
    service = await startService({ env: { SMTP_URL: smtp.url, PARLEY_RATE_LIMIT_PER_MINUTE: '100000', PARLEY_PUBLIC_URL: 'https://parley.example.net' } });
    ws = await service.seedWorkspace({ plan: 'enterprise' });
    const agent = await seedAgent(service, ws, 'Tls');
    await seedTexts(service, ws.keys.manage, agent, [{ title: 'Opening hours', content: 'Our workshop is open on Saturday from 10:00 to 16:00.' }]);
    await enableEmail(service, ws, agent, { address: AGENT_ADDRESS });
  });
  after(async () => {
    for (const server of servers) await server.close();
    await service?.close();
    await smtp?.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function inbound(options: Partial<Parameters<typeof startMailInbound>[1]> = {}): Promise<MailInbound> {
    const server = await startMailInbound(service.ctx, { port: 0, host: '127.0.0.1', resolver: testResolver({}), ...options });
    servers.push(server);
    return server;
  }

  test('without certificate files a self-signed one for the public host name is made at start, and a client that upgrades has its mail answered', async () => {
    const server = await inbound();
    assert.equal(server.tls, 'self-signed');
    const { ehlo, certificate } = await ehloAndUpgrade(server.port);
    assert.match(ehlo, /250[- ]STARTTLS/);
    assert.ok(certificate);
    assert.match(certificate.subject, /CN=parley\.example\.net/);
    assert.equal(certificate.checkHost('parley.example.net'), 'parley.example.net');

    // A sending server that insists on TLS (requireTLS: without the upgrade nodemailer gives up before MAIL FROM).
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: server.port, secure: false, requireTLS: true, tls: { rejectUnauthorized: false } } as never);
    const sender = 'tls@visitor.example';
    try {
      const info = await transport.sendMail({ from: sender, to: AGENT_ADDRESS, subject: 'Saturday', text: 'When is the workshop open on Saturday?' });
      assert.match(String(info.response), /^250/);
    } finally {
      transport.close();
    }
    const reply = await smtp.waitFor((m) => m.to.includes(sender));
    assert.match(reply.text, /10:00/);
  });

  test('PARLEY_MAIL_TLS_CERT and PARLEY_MAIL_TLS_KEY: the certificate in the files is the one shown', async () => {
    const made = (await selfSigned('mx.tls.example'))!;
    const [certFile, keyFile] = [path.join(dir, 'cert.pem'), path.join(dir, 'key.pem')];
    await writeFile(certFile, made.cert);
    await writeFile(keyFile, made.key);
    const server = await inbound({ tls: await mailTls({ mailTlsCert: certFile, mailTlsKey: keyFile }, 'ignored.example') });
    assert.equal(server.tls, 'files');
    const { certificate } = await ehloAndUpgrade(server.port);
    assert.equal(certificate?.fingerprint256, new X509Certificate(made.cert).fingerprint256);
    await assert.rejects(mailTls({ mailTlsCert: certFile, mailTlsKey: undefined }, 'x.example'), /set both or neither/);
  });

  test('with no certificate at all, STARTTLS is not offered (never the SMTP library’s built-in one)', async () => {
    const server = await inbound({ tls: null });
    assert.equal(server.tls, undefined);
    const { ehlo } = await ehloAndUpgrade(server.port);
    assert.doesNotMatch(ehlo, /STARTTLS/);
  });
});
