/**
 * The e-mail channel: mails sent over SMTP to the service's inbound port at a
 * steady 10 a second (open loop), each from its own sender, answered by the
 * offline model and mailed back to a local SMTP server (SMTP_URL). For each mail,
 * the time from the start of its SMTP transaction to its answer's arrival at that
 * server; p50 and p99, and answers a second. "accepted": the time to the inbound server's 250
 * (the mail is answered and its answer recorded before it). The service runs as `npm start` does
 * (its own process), on the embedded store and, with TEST_DATABASE_URL and
 * TEST_REDIS_URL (or BENCH_*), on PostgreSQL + Redis. Target: p99 under 2 s at 10 mails a second on PostgreSQL.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import { freePort, manageApi, onBothStores, printTable, startParley } from './support.ts';

const RATE_PER_SECOND = Number(process.env.BENCH_EMAIL_RATE ?? 10);
const STEADY_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const DRAIN_TIMEOUT_MS = 60_000;
const ADDRESS = 'help@bikes.example';

export async function run(): Promise<void> {
  await onBothStores(measureStore);
}

async function measureStore(store: string, env: Record<string, string>): Promise<void> {
  const arrivals = new Map<string, number>();
  const outbound = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      stream.on('data', () => {});
      stream.on('end', () => {
        for (const rcpt of session.envelope.rcptTo) arrivals.set(rcpt.address, Date.now());
        callback();
      });
    },
  });
  outbound.listen(0, '127.0.0.1');
  await once(outbound.server, 'listening');
  const inboundPort = await freePort();
  const service = await startParley({
    ...env,
    SMTP_URL: `smtp://127.0.0.1:${(outbound.server.address() as AddressInfo).port}`,
    PARLEY_MAIL_INBOUND_PORT: String(inboundPort),
  });
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: inboundPort, secure: false, ignoreTLS: true, pool: true, maxConnections: 20 } as never);
  try {
    await prepare(service);
    const started = new Map<string, number>();
    const accepted: number[] = [];
    const send = async (sender: string) => {
      const at = Date.now();
      started.set(sender, at);
      await transport.sendMail({ from: sender, to: ADDRESS, subject: 'Opening hours', text: 'When is the workshop open on Saturday?' });
      accepted.push(Date.now() - at);
    };
    for (let i = 0; i < 5; i++) await send(`warmup${i}@visitor.example`);
    await drain(arrivals, 5);
    arrivals.clear();
    started.clear();
    accepted.length = 0;
    const total = RATE_PER_SECOND * STEADY_SECONDS;
    const begin = performance.now();
    const sent: Array<Promise<void>> = [];
    for (let i = 0; i < total; i++) {
      const wait = begin + (i * 1000) / RATE_PER_SECOND - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      sent.push(send(`visitor${i}@visitor.example`));
    }
    await Promise.all(sent);
    await drain(arrivals, total);
    const latencies = [...arrivals].map(([sender, at]) => at - started.get(sender)!).sort((a, b) => a - b);
    const span = (Math.max(...arrivals.values()) - Math.min(...started.values())) / 1000;
    printTable(`E-mail channel, ${store}: offline model, a local outbound SMTP server`, [
      {
        case: `${RATE_PER_SECOND} mails/s for ${STEADY_SECONDS} s, each its own sender`,
        answered: `${arrivals.size}/${total}`,
        'accepted p50 ms': percentile(accepted.sort((a, b) => a - b), 0.5),
        'accepted p99 ms': percentile(accepted, 0.99),
        'p50 ms': percentile(latencies, 0.5),
        'p99 ms': percentile(latencies, 0.99),
        'max ms': latencies.at(-1) ?? '-',
        'answers/s': Math.round(arrivals.size / span),
      },
    ]);
  } finally {
    transport.close();
    await service.stop();
    await new Promise<void>((resolve) => outbound.close(() => resolve()));
  }
}

async function prepare(service: { url: string; manageKey: string }): Promise<void> {
  const api = manageApi(service);
  const agent = await api('POST', '/agents', { name: 'Bikes', useCase: 'general' });
  await api('POST', `/agents/${agent.id}/sources`, { type: 'text', title: 'Opening hours', content: 'Our workshop is open Monday to Friday from 9:00 to 18:00 and on Saturday from 10:00 to 16:00.' });
  await api('PATCH', `/agents/${agent.id}`, { emailChannel: { enabled: true, address: ADDRESS, review: false } });
  // The source is read in the background: wait until a question finds it.
  for (let i = 0; i < 100; i++) {
    const reply = await api('POST', `/agents/${agent.id}/chat`, { message: 'When is the workshop open on Saturday?' });
    if (reply.sources?.length > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('the source was never read');
}

async function drain(arrivals: Map<string, number>, count: number): Promise<void> {
  const deadline = Date.now() + DRAIN_TIMEOUT_MS;
  while (arrivals.size < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
}

function percentile(sorted: number[], p: number): number | string {
  if (sorted.length === 0) return '-';
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;
}
