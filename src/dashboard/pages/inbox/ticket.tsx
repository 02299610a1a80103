/**
 * One ticket: its fields and entries oldest first; "Reply" / "Send reply" mails the visitor
 * (POST /app/api/…/replies; a reply that could not be mailed says why in mailError); notes;
 * the status; delete on its own. Held e-mail drafts (GET …/drafts, docs/people.md) are each
 * "Send as it is", "Edit and send" or "Discard" (after a confirmation).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { call, get, send, type ApiError } from '../../api.ts';
import { asApiError, flash, useData } from '../../data.ts';
import { useSubmit } from '../../submit.ts';
import { formatDate, t } from '../../i18n/index.ts';
import { navigate } from '../../router.ts';
import type { PageProps } from '../../routes.ts';
import { Badge, Button, ErrorNotice, Notice, Select, TextField } from '../../components/index.ts';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { agentApi, Fields, InboxFrame, inboxPath, OutsideLink } from './frame.tsx';
import { STATUS_TONE } from './tickets.tsx';
import { TICKET_STATUSES, type HeldDraft, type TicketEntry, type TicketStatus, type TicketWithEntries } from './types.ts';

export default function TicketPage({ params }: PageProps) {
  const agentId = params.agentId!;
  const ticketId = params.ticketId!;
  const path = agentApi(agentId, `tickets/${encodeURIComponent(ticketId)}`);
  const ticket = useData(() => get<TicketWithEntries>(path), [path]);
  const draftsPath = `/agents/${encodeURIComponent(agentId)}/tickets/${encodeURIComponent(ticketId)}/drafts`;
  const drafts = useData(() => get<HeldDraft[]>(draftsPath), [draftsPath]);
  const reloadAll = async () => {
    await Promise.all([ticket.reload(), drafts.reload()]);
  };
  const [deleting, setDeleting] = useState(false);
  const [statusError, setStatusError] = useState<ApiError>();
  const [message, setMessage] = useState<string>();
  const data = ticket.data;
  const changeStatus = async (status: string) => {
    setStatusError(undefined);
    try {
      await send('PATCH', path, { status });
      setMessage(t('inbox.statusChanged', { status: t(`inbox.ticketStatus.${status as TicketStatus}`) }));
      await ticket.reload();
    } catch (caught) {
      setStatusError(asApiError(caught));
    }
  };
  return (
    <InboxFrame agentId={agentId} tab="tickets">
      <p class="cell-note">
        <a href={inboxPath(agentId, 'tickets')}>{t('inbox.backToTickets')}</a>
      </p>
      {ticket.error && <ErrorNotice error={ticket.error} />}
      {!data && !ticket.error && <p role="status">{t('app.loading')}</p>}
      <Notice kind="success">{message}</Notice>
      {data && (
        <article aria-labelledby="ticket-title">
          <div class="page-header">
            <div class="page-header-text">
              <h2 id="ticket-title">
                {t('inbox.ticketNumber', { number: data.number })} <Badge tone={STATUS_TONE[data.status]}>{t(`inbox.ticketStatus.${data.status}`)}</Badge>
              </h2>
            </div>
            <div class="page-header-actions">
              <Button kind="danger" onClick={() => setDeleting(true)}>
                {t('inbox.deleteTicket')}
              </Button>
            </div>
          </div>
          <div class="inbox-status">
            <Select label={t('inbox.status')} value={data.status} options={TICKET_STATUSES.map((status) => ({ value: status, label: t(`inbox.ticketStatus.${status}`) }))} onChange={(status) => void changeStatus(status)} error={statusError?.message} />
          </div>
          <Fields
            rows={[
              [t('inbox.visitor'), data.name ? `${data.name} <${data.email}>` : data.email],
              [t('inbox.signedIn'), data.signedIn ? t('inbox.yes') : t('inbox.no')],
              [t('inbox.language'), data.language],
              [t('inbox.page'), data.page && <OutsideLink url={data.page.url} />],
              [t('inbox.conversation'), data.conversationId && <a href={inboxPath(agentId, 'conversations', data.conversationId)}>{t('inbox.openConversation')}</a>],
              [t('inbox.opened'), formatDate(data.createdAt)],
              [t('inbox.lastActivity'), formatDate(data.lastActivityAt)],
              [t('inbox.solved'), data.solvedAt && formatDate(data.solvedAt)],
              [t('inbox.expires'), data.expiresAt && formatDate(data.expiresAt)],
              [t('inbox.helpdesk'), data.helpdesk && <OutsideLink url={data.helpdesk.url}>{`${data.helpdesk.provider} ${data.helpdesk.number}`}</OutsideLink>],
            ]}
          />
          <h3>{t('inbox.question')}</h3>
          <p class="inbox-text">{data.question}</p>
          <h3>{t('inbox.entries')}</h3>
          {data.entries.length === 0 ? (
            <p class="cell-note">{t('inbox.noEntries')}</p>
          ) : (
            <ol class="inbox-thread">
              {data.entries.map((entry) => (
                <Entry key={entry.id} entry={entry} />
              ))}
            </ol>
          )}
          {drafts.error && <ErrorNotice error={drafts.error} />}
          {drafts.data && drafts.data.length > 0 && (
            <section class="inbox2-drafts" aria-labelledby="held-drafts-title">
              <h3 id="held-drafts-title">{t('inbox2.heldDrafts')}</h3>
              <p class="cell-note">{t('inbox2.heldDraftsHint', { email: data.email })}</p>
              <ul class="inbox2-draft-list">
                {drafts.data.map((draft) => (
                  <HeldDraftItem
                    key={draft.id}
                    draft={draft}
                    path={`${draftsPath}/${encodeURIComponent(draft.id)}`}
                    onDone={async (text) => {
                      setMessage(text);
                      await reloadAll();
                    }}
                  />
                ))}
              </ul>
            </section>
          )}
          <Compose
            label={t('inbox.reply')}
            action={t('inbox.sendReply')}
            hint={t('inbox.replyHint', { email: data.email })}
            onSend={async (body) => {
              await call('POST', `/agents/${encodeURIComponent(agentId)}/tickets/${encodeURIComponent(ticketId)}/replies`, { body });
              setMessage(t('inbox.replySent', { email: data.email }));
              await ticket.reload();
            }}
          />
          <Compose
            label={t('inbox.note')}
            action={t('inbox.addNote')}
            hint={t('inbox.noteHint')}
            kind="secondary"
            onSend={async (body) => {
              await send('POST', `${path}/notes`, { body });
              setMessage(t('inbox.noteAdded'));
              await ticket.reload();
            }}
          />
        </article>
      )}
      <ConfirmDialog
        open={deleting}
        title={t('inbox.deleteTicketTitle')}
        text={t('inbox.deleteTicketText')}
        confirm={t('inbox.delete')}
        onClose={() => setDeleting(false)}
        onConfirm={async () => {
          await call('DELETE', `/agents/${encodeURIComponent(agentId)}/tickets/${encodeURIComponent(ticketId)}`);
          flash(t('inbox.ticketDeleted'));
          navigate(inboxPath(agentId, 'tickets'));
        }}
      />
    </InboxFrame>
  );
}

const ENTRY_TONE = { visitor: 'neutral', team: 'good', note: 'neutral', held: 'busy' } as const;

function Entry({ entry }: { entry: TicketEntry }) {
  return (
    <li class={`inbox-message inbox-entry-${entry.kind}`}>
      <p class="inbox-message-head">
        <Badge tone={ENTRY_TONE[entry.kind]}>{t(`inbox.entry.${entry.kind}`)}</Badge> {entry.from && <span>{entry.from}</span>} <span class="cell-note">{formatDate(entry.createdAt)}</span>
      </p>
      <p class="inbox-text">{entry.body}</p>
      {entry.kind === 'held' && <p class="cell-note">{t('inbox2.heldEntry')}</p>}
      {entry.mailError && <p class="field-error">{t('inbox.mailError', { reason: entry.mailError })}</p>}
    </li>
  );
}

/** A text box and its button: a reply mailed to the visitor, or a note. */
function Compose({ label, action, hint, kind = 'primary', onSend }: { label: string; action: string; hint: string; kind?: 'primary' | 'secondary'; onSend: (body: string) => Promise<void> }) {
  const [body, setBody] = useState('');
  const { busy, error, submit } = useSubmit(async () => {
    await onSend(body);
    setBody('');
  });
  return (
    <form class="inbox-compose" onSubmit={submit} noValidate>
      <ErrorNotice error={error && !error.field('body') ? error : undefined} />
      <TextField label={label} multiline rows={4} value={body} onInput={setBody} hint={hint} error={error?.field('body')} />
      <div class="form-actions">
        <Button kind={kind} type="submit" busy={busy}>
          {action}
        </Button>
      </div>
    </form>
  );
}

/** One held draft: sent as it is, edited and sent (the person's text instead), or discarded after a confirmation. */
function HeldDraftItem({ draft, path, onDone }: { draft: HeldDraft; path: string; onDone: (message: string) => Promise<void> }) {
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(draft.draft);
  const [discarding, setDiscarding] = useState(false);
  const [busy, setBusy] = useState<'send' | 'edit'>();
  const [error, setError] = useState<ApiError>();
  const box = useRef<HTMLInputElement | HTMLTextAreaElement>(null);
  useEffect(() => {
    if (editing) box.current?.focus();
  }, [editing]);
  const sendDraft = async (edited: boolean) => {
    setBusy(edited ? 'edit' : 'send');
    setError(undefined);
    try {
      await call('POST', `${path}/send`, edited ? { text } : {});
      await onDone(t('inbox2.draftSent'));
    } catch (caught) {
      setError(asApiError(caught));
    } finally {
      setBusy(undefined);
    }
  };
  return (
    <li class="inbox-message inbox-entry-held inbox2-draft">
      <p class="inbox-message-head">
        <Badge tone="busy">{t('inbox.entry.held')}</Badge> <span class="cell-note">{formatDate(draft.createdAt)}</span>
      </p>
      <ErrorNotice error={error && !error.field('text') ? error : undefined} />
      {editing ? (
        <form
          class="inbox-compose"
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            void sendDraft(true);
          }}
        >
          <TextField label={t('inbox2.draftText')} multiline rows={8} value={text} onInput={setText} error={error?.field('text')} inputRef={box} />
          <div class="form-actions">
            <Button kind="primary" type="submit" busy={busy === 'edit'}>
              {t('inbox2.sendEdited')}
            </Button>
            <Button onClick={() => setEditing(false)}>{t('app.cancel')}</Button>
          </div>
        </form>
      ) : (
        <>
          <p class="inbox-text">{draft.draft}</p>
          <div class="form-actions">
            <Button kind="primary" busy={busy === 'send'} onClick={() => void sendDraft(false)}>
              {t('inbox2.sendAsItIs')}
            </Button>
            <Button onClick={() => setEditing(true)}>{t('inbox2.editAndSend')}</Button>
            <Button kind="danger" onClick={() => setDiscarding(true)}>
              {t('inbox2.discard')}
            </Button>
          </div>
        </>
      )}
      <ConfirmDialog
        open={discarding}
        title={t('inbox2.discardTitle')}
        text={t('inbox2.discardText')}
        confirm={t('inbox2.discard')}
        onClose={() => setDiscarding(false)}
        onConfirm={async () => {
          await call('POST', `${path}/discard`);
          await onDone(t('inbox2.draftDiscarded'));
        }}
      />
    </li>
  );
}
