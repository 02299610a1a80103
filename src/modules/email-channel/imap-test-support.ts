import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, connect, type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ImapFlow } from 'imapflow';

export const DOVECOT = '/usr/sbin/dovecot';

/** Why the IMAP tests cannot run here, or undefined when they can (.ci/run installs dovecot-imapd). */
export function dovecotMissing(): string | undefined {
  return existsSync(DOVECOT) ? undefined : `${DOVECOT} is missing: install dovecot-imapd (bash .ci/run does) to run the IMAP tests`;
}

export interface Dovecot {
  port: number;
  user: string;
  password: string;
  /** A mail put into the user's folder (IMAP APPEND), unread; returns its UID. */
  append(raw: string, folder?: string, flags?: string[]): Promise<number>;
  /** The flags of every mail of a folder, by UID. */
  flags(folder?: string): Promise<Map<number, Set<string>>>;
  /** Makes every mail of the folder unread again. */
  markUnread(folder?: string): Promise<void>;
  log(): Promise<string>;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function waitForPort(port: number, child: ChildProcess, log: () => Promise<string>): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`dovecot stopped (${child.exitCode}): ${await log()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`dovecot did not listen on ${port}: ${await log()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * A dovecot of the test's own: its configuration, run directory, user (a passwd file)
 * and maildir in a temporary directory, on a free local port, plain IMAP, no system
 * service touched. Run as root, the mail is the `nobody` user's.
 */
export async function startDovecot(): Promise<Dovecot> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'parley-dovecot-'));
  const port = await freePort();
  const user = 'agent';
  const password = `pw-${Math.random().toString(36).slice(2)}`;
  const root = process.getuid?.() === 0;
  const uid = root ? 65534 : process.getuid!();
  const gid = root ? 65534 : process.getgid!();
  const me = root ? undefined : os.userInfo().username;
  await mkdir(path.join(dir, 'run'));
  await mkdir(path.join(dir, 'mail'));
  await writeFile(path.join(dir, 'users'), `${user}:{PLAIN}${password}:${uid}:${gid}::${path.join(dir, 'mail', user)}\n`);
  if (root) {
    await chmod(dir, 0o755);
    await chown(path.join(dir, 'mail'), uid, gid);
  }
  const logFile = path.join(dir, 'dovecot.log');
  await writeFile(
    path.join(dir, 'dovecot.conf'),
    [
      `base_dir = ${path.join(dir, 'run')}`,
      `state_dir = ${path.join(dir, 'state')}`,
      `log_path = ${logFile}`,
      `info_log_path = ${logFile}`,
      'protocols = imap',
      'listen = 127.0.0.1',
      'ssl = no',
      'disable_plaintext_auth = no',
      'auth_mechanisms = plain login',
      `first_valid_uid = ${Math.min(uid, 1)}`,
      ...(me ? [`default_login_user = ${me}`, `default_internal_user = ${me}`, `default_internal_group = ${os.userInfo().username}`] : []),
      `mail_location = maildir:~/Maildir`,
      'namespace inbox {',
      '  inbox = yes',
      '  mailbox Handled {',
      '    auto = create',
      '  }',
      '}',
      'service imap-login {',
      '  chroot =',
      '  inet_listener imap {',
      `    port = ${port}`,
      '  }',
      '  inet_listener imaps {',
      '    port = 0',
      '  }',
      '}',
      'service anvil {',
      '  chroot =',
      '}',
      'passdb {',
      '  driver = passwd-file',
      `  args = ${path.join(dir, 'users')}`,
      '}',
      'userdb {',
      '  driver = passwd-file',
      `  args = ${path.join(dir, 'users')}`,
      '}',
      '',
    ].join('\n'),
  );
  const child = spawn(DOVECOT, ['-F', '-c', path.join(dir, 'dovecot.conf')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const log = async () => `${output}\n${await readFile(logFile, 'utf8').catch(() => '')}`;
  await waitForPort(port, child, log);

  const withClient = async <T>(work: (client: ImapFlow) => Promise<T>): Promise<T> => {
    const client = new ImapFlow({ host: '127.0.0.1', port, secure: false, auth: { user, pass: password }, logger: false } as never);
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.logout();
    }
  };
  return {
    port,
    user,
    password,
    append: (raw, folder = 'INBOX', flags = []) =>
      withClient(async (client) => {
        const appended = await client.append(folder, Buffer.from(raw.replace(/\r?\n/g, '\r\n')), flags);
        return Number((appended as { uid?: number }).uid ?? 0);
      }),
    flags: (folder = 'INBOX') =>
      withClient(async (client) => {
        const out = new Map<number, Set<string>>();
        const lock = await client.getMailboxLock(folder);
        try {
          for await (const message of client.fetch('1:*', { uid: true, flags: true })) out.set(message.uid, new Set(message.flags ?? []));
        } catch {
          // an empty folder: no mail to list
        } finally {
          lock.release();
        }
        return out;
      }),
    markUnread: (folder = 'INBOX') =>
      withClient(async (client) => {
        const lock = await client.getMailboxLock(folder);
        try {
          await client.messageFlagsRemove('1:*', ['\\Seen']);
        } finally {
          lock.release();
        }
      }),
    log,
    close: async () => {
      child.kill('SIGTERM');
      await new Promise((resolve) => (child.exitCode !== null ? resolve(undefined) : child.once('exit', resolve)));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
