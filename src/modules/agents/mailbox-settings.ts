/**
 * The IMAP mailbox as part of an agent's settings (docs/email.md, "IMAP"): how a PATCH
 * merges into emailChannel.imap. Pure settings logic, so it lives with the agent's other
 * rules; the sealed password and the mailbox's row are the e-mail channel's
 * (email-channel/mailbox.ts), saved by its verb email-channel/agent-update.ts.
 */
import { errors } from '../../domain/errors.ts';
import type { PatchAgentInput } from './schemas.ts';
import type { AgentSettings } from './settings.ts';

export type MailboxSettings = NonNullable<AgentSettings['emailChannel']['imap']>;
type MailboxPatch = NonNullable<PatchAgentInput['emailChannel']>['imap'];

/**
 * The channel's settings with the mailbox patched in: null removes it; otherwise the
 * members sent over the stored ones. A new mailbox needs a host, a user and a password.
 */
export function withMailbox(channel: AgentSettings['emailChannel'], current: MailboxSettings | undefined, patch: MailboxPatch): AgentSettings['emailChannel'] {
  const { imap: _merged, ...rest } = channel;
  if (patch === null || patch === undefined) return patch === null ? rest : channel;
  const { password, ...members } = patch;
  const secure = members.secure ?? current?.secure ?? true;
  const next: MailboxSettings = {
    host: members.host ?? current?.host ?? '',
    port: members.port ?? current?.port ?? (secure ? 993 : 143),
    secure,
    user: members.user ?? current?.user ?? '',
    folder: members.folder ?? current?.folder ?? 'INBOX',
    moveTo: members.moveTo !== undefined ? members.moveTo : (current?.moveTo ?? null),
    passwordSet: password !== undefined || (current?.passwordSet ?? false),
  };
  if (!next.host) throw errors.invalidField('emailChannel.imap.host', 'The mailbox needs the host of its IMAP server.');
  if (!next.user) throw errors.invalidField('emailChannel.imap.user', 'The mailbox needs the user name it signs in with.');
  if (!next.passwordSet) throw errors.invalidField('emailChannel.imap.password', 'The mailbox needs its password or app password.');
  // The stored password goes only to the server and user it was given for: another host,
  // port, user or a switch of TLS needs the password again, so no one who may change the
  // agent can send the owner's password to a server of their choosing.
  const reaimed = current !== undefined && (next.host !== current.host || next.port !== current.port || next.secure !== current.secure || next.user !== current.user);
  if (reaimed && password === undefined) throw errors.invalidField('emailChannel.imap.password', 'Another server, port, user or TLS setting needs the password again.');
  if (next.moveTo !== null && next.moveTo === next.folder) throw errors.invalidField('emailChannel.imap.moveTo', 'Handled mail must move to another folder than the one read.');
  return { ...rest, imap: next };
}
