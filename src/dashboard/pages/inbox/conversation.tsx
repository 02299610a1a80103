/**
 * One conversation: every message with its page and attachments (a question) or its
 * confidence, grounding, sources and feedback (an answer); an answer corrected in place
 * (POST correction: a Q&A source); a visitor file's text read and the file erased; delete.
 * Opened with ?correct={messageId} (the Analytics page's "Correct it"), that answer's
 * correction form is open and has the focus.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { get, send, type ApiError } from '../../api.ts';
import { asApiError, flash, useData } from '../../data.ts';
import { useSubmit } from '../../submit.ts';
import { formatBytes, formatDate, formatNumber, t } from '../../i18n/index.ts';
import { navigate } from '../../router.ts';
import type { PageProps } from '../../routes.ts';
import { Badge, Button, ErrorNotice, Notice, TextField } from '../../components/index.ts';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { agentApi, Fields, InboxFrame, inboxPath, OutsideLink, PageLink } from './frame.tsx';
import type { Attachment, ConversationWithMessages, Message, VisitorFile } from './types.ts';

const GROUNDING_TONE = { supported: 'good', partial: 'busy', unsupported: 'bad' } as const;

export default function ConversationPage({ params, query }: PageProps) {
  const agentId = params.agentId!;
  const conversationId = params.conversationId!;
  const correct = query.get('correct');
  const conversation = useData(() => get<ConversationWithMessages>(agentApi(agentId, `conversations/${encodeURIComponent(conversationId)}`)), [agentId, conversationId]);
  const [deleting, setDeleting] = useState(false);
  const data = conversation.data;
  return (
    <InboxFrame agentId={agentId} tab="conversations">
      <p class="cell-note">
        <a href={inboxPath(agentId, 'conversations')}>{t('inbox.backToConversations')}</a>
      </p>
      {conversation.error && <ErrorNotice error={conversation.error} />}
      {!data && !conversation.error && <p role="status">{t('app.loading')}</p>}
      {data && (
        <article aria-labelledby="conversation-title">
          <div class="page-header">
            <div class="page-header-text">
              <h2 id="conversation-title" class="inbox-clip">{data.firstMessage || t('inbox.conversation')}</h2>
            </div>
            <div class="page-header-actions">
              <Button kind="danger" onClick={() => setDeleting(true)}>
                {t('inbox.deleteConversation')}
              </Button>
            </div>
          </div>
          <Fields
            rows={[
              [t('inbox.channel'), t(`inbox.channel.${data.channel}`)],
              [t('inbox.started'), formatDate(data.startedAt)],
              [t('inbox.lastMessage'), formatDate(data.lastMessageAt)],
              [t('inbox.from'), data.from],
              [t('inbox.userId'), data.userId],
              [t('inbox.openedBy'), data.openedBy ? t(`inbox.openedBy.${data.openedBy}`) : null],
            ]}
          />
          <ol class="inbox-thread">
            {data.messages.map((message, index) => (
              <li key={message.id} class={`inbox-message inbox-message-${message.role}`}>
                {message.role === 'user' ? (
                  <Question agentId={agentId} message={message} />
                ) : (
                  <Answer agentId={agentId} message={message} question={previousQuestion(data.messages, index)} startCorrecting={message.id === correct} />
                )}
              </li>
            ))}
          </ol>
        </article>
      )}
      <ConfirmDialog
        open={deleting}
        title={t('inbox.deleteConversationTitle')}
        text={t('inbox.deleteConversationText')}
        confirm={t('inbox.delete')}
        onClose={() => setDeleting(false)}
        onConfirm={async () => {
          await send('DELETE', agentApi(agentId, `conversations/${encodeURIComponent(conversationId)}`));
          flash(t('inbox.conversationDeleted'));
          navigate(inboxPath(agentId, 'conversations'));
        }}
      />
    </InboxFrame>
  );
}

function previousQuestion(messages: Message[], index: number): string {
  for (let i = index - 1; i >= 0; i--) if (messages[i]!.role === 'user') return messages[i]!.content;
  return '';
}

function Question({ agentId, message }: { agentId: string; message: Message }) {
  return (
    <>
      <p class="inbox-message-head">
        <strong>{t('inbox.visitor')}</strong> <span class="cell-note">{formatDate(message.createdAt)}</span>
      </p>
      <p class="inbox-text">{message.content}</p>
      {message.page && (
        <p class="cell-note">
          {t('inbox.askedOn')} <PageLink page={message.page} />
        </p>
      )}
      {message.attachments.length > 0 && (
        <ul class="inbox-attachments" aria-label={t('inbox.attachments')}>
          {message.attachments.map((attachment) => (
            <AttachmentItem key={attachment.id} agentId={agentId} attachment={attachment} />
          ))}
        </ul>
      )}
    </>
  );
}

/** A visitor file: what it is; its text read on demand (the read is audited), and erased after a confirmation. */
function AttachmentItem({ agentId, attachment }: { agentId: string; attachment: Attachment }) {
  const [file, setFile] = useState<VisitorFile>();
  const [error, setError] = useState<ApiError>();
  const [erasing, setErasing] = useState(false);
  const [erased, setErased] = useState(false);
  const path = agentApi(agentId, `visitor-files/${encodeURIComponent(attachment.id)}`);
  const read = async () => {
    setError(undefined);
    try {
      setFile(await get<VisitorFile>(path));
    } catch (caught) {
      setError(asApiError(caught));
    }
  };
  const facts = [
    formatBytes(attachment.sizeBytes),
    attachment.pages !== null ? t('inbox.filePages', { count: formatNumber(attachment.pages) }) : '',
    attachment.truncated ? t('inbox.fileTruncated') : '',
    attachment.ocrPages ? t('inbox.fileOcr', { count: formatNumber(attachment.ocrPages) }) : '',
  ].filter(Boolean);
  return (
    <li class="inbox-attachment">
      <strong>{attachment.fileName}</strong> <span class="cell-note">{facts.join(' · ')}</span>
      {erased ? (
        <p>{t('inbox.fileErased')}</p>
      ) : (
        <div class="form-actions">
          {!file && (
            <Button kind="quiet" aria-label={t('inbox.readFileNamed', { name: attachment.fileName })} onClick={() => void read()}>
              {t('inbox.readFile')}
            </Button>
          )}
          <Button kind="quiet" aria-label={t('inbox.eraseFileNamed', { name: attachment.fileName })} onClick={() => setErasing(true)}>
            {t('inbox.eraseFile')}
          </Button>
        </div>
      )}
      <ErrorNotice error={error} />
      {file && !erased && (file.text === null ? <p class="cell-note">{file.stored ? t('inbox.fileNoText') : t('inbox.fileGone')}</p> : <pre class="inbox-file-text">{file.text}</pre>)}
      <ConfirmDialog
        open={erasing}
        title={t('inbox.eraseFileTitle', { name: attachment.fileName })}
        text={t('inbox.eraseFileText')}
        confirm={t('inbox.eraseFile')}
        onClose={() => setErasing(false)}
        onConfirm={async () => {
          await send('DELETE', path);
          setErased(true);
        }}
      />
    </li>
  );
}

function Answer({ agentId, message, question, startCorrecting }: { agentId: string; message: Message; question: string; startCorrecting: boolean }) {
  const [correcting, setCorrecting] = useState(startCorrecting);
  const [corrected, setCorrected] = useState(false);
  return (
    <>
      <p class="inbox-message-head">
        <strong>{t('inbox.agentSaid')}</strong> <span class="cell-note">{formatDate(message.createdAt)}</span>
        {message.held && <Badge tone="busy">{t('inbox.held')}</Badge>}
      </p>
      <p class="inbox-text">{message.content}</p>
      <p class="inbox-facts">
        {message.confidence !== null && <span>{t('inbox.confidenceIs', { value: formatNumber(message.confidence) })}</span>}
        {message.grounding && <Badge tone={GROUNDING_TONE[message.grounding]}>{t(`inbox.grounding.${message.grounding}`)}</Badge>}
        {message.feedback !== null && <span>{message.feedback === 1 ? t('inbox.feedbackUp') : t('inbox.feedbackDown')}</span>}
        {message.model && <span class="cell-note">{message.model}</span>}
      </p>
      {message.sources.length > 0 && (
        <details>
          <summary>{t('inbox.sourcesUsed', { count: formatNumber(message.sources.length) })}</summary>
          <ul>
            {message.sources.map((source) => (
              <li key={source.id}>
                {source.url ? <OutsideLink url={source.url}>{source.name}</OutsideLink> : source.name}{' '}
                <span class="cell-note">{t('inbox.similarity', { value: formatNumber(Math.round(source.similarity * 100)) })}</span>
              </li>
            ))}
          </ul>
        </details>
      )}
      <Notice kind="success">{corrected ? t('inbox.corrected') : undefined}</Notice>
      {!correcting && !corrected && (
        <Button kind="quiet" onClick={() => setCorrecting(true)}>
          {t('inbox.correct')}
        </Button>
      )}
      {correcting && (
        <Correction
          agentId={agentId}
          message={message}
          question={question}
          focus={startCorrecting}
          onDone={(saved) => {
            setCorrecting(false);
            setCorrected(saved);
          }}
        />
      )}
    </>
  );
}

/** What the answer should have said, written in place under it: it becomes a Q&A source; the conversation stays as it was. */
function Correction({ agentId, message, question, focus, onDone }: { agentId: string; message: Message; question: string; focus: boolean; onDone: (saved: boolean) => void }) {
  const first = useRef<HTMLInputElement | HTMLTextAreaElement>(null);
  // Opened from a link (?correct=): the form is brought into view with the focus on its first box.
  useEffect(() => {
    if (!focus || !first.current) return;
    first.current.scrollIntoView({ block: 'center' });
    first.current.focus();
  }, []);
  const [asked, setAsked] = useState(question);
  const [answer, setAnswer] = useState(message.content);
  const { busy, error, submit } = useSubmit(async () => {
    await send('POST', agentApi(agentId, `messages/${encodeURIComponent(message.id)}/correction`), { question: asked, answer });
    onDone(true);
  });
  return (
    <form class="inbox-correction" onSubmit={submit} noValidate>
      <ErrorNotice error={error && !error.field('question') && !error.field('answer') ? error : undefined} />
      <TextField label={t('inbox.correctionQuestion')} value={asked} onInput={setAsked} error={error?.field('question')} inputRef={first} />
      <TextField label={t('inbox.correctionAnswer')} multiline rows={5} value={answer} onInput={setAnswer} error={error?.field('answer')} hint={t('inbox.correctionHint')} />
      <div class="form-actions">
        <Button kind="primary" type="submit" busy={busy}>
          {t('inbox.saveCorrection')}
        </Button>
        <Button onClick={() => onDone(false)}>{t('app.cancel')}</Button>
      </div>
    </form>
  );
}
