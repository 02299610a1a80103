/**
 * One agent's playground (issue 23): the owner chats with the agent as visitors do, in test
 * conversations (POST /agents/{id}/chat with test: true, channel playground, kept out of the
 * Overview and client reports). The answer streams in (the AI SDK's UI message stream, read by
 * the widget's own reader); under each answer its confidence, grounding (read from the
 * conversation once the answer is complete) and the sources as links; the preset's ten test
 * questions as one-click suggestions; "Correct this answer" in place (spec 4.8: it becomes a
 * Q&A source, followed until learned, and the next answer uses it).
 */
import { useRef, useState } from 'preact/hooks';
import { ApiError, get, send } from '../../api.ts';
import { asApiError, useData } from '../../data.ts';
import { formatNumber, t } from '../../i18n/index.ts';
import type { PageProps } from '../../routes.ts';
import type { Agent, ChatAnswer, SetupGuide, Source } from '../../types.ts';
import { Badge, Button, ErrorNotice, Notice, TextField } from '../../components/index.ts';
import { AgentFrame } from '../agent/frame.tsx';
import { readParts } from '../../../widget/stream.ts';

type AnswerSource = ChatAnswer['sources'][number];

interface Turn {
  key: number;
  question: string;
  answer: string;
  messageId?: string;
  confidence?: number;
  grounding?: ChatAnswer['grounding'];
  sources: AnswerSource[];
  done: boolean;
  error?: ApiError;
}

export default function PlaygroundPage({ params, me }: PageProps) {
  const agentId = params.agentId!;
  return <AgentFrame agentId={agentId} tab="playground">{(agent) => <Playground agentId={agentId} agent={agent.data} csrfToken={me.csrfToken} />}</AgentFrame>;
}

let turnKeys = 0;

function Playground({ agentId, agent, csrfToken }: { agentId: string; agent: Agent | undefined; csrfToken: string }) {
  const base = `/v1/agents/${encodeURIComponent(agentId)}`;
  const [turns, setTurns] = useState<Turn[]>([]);
  const [message, setMessage] = useState('');
  const [busy, setBusy] = useState(false);
  const conversationId = useRef<string | undefined>(undefined);
  const input = useRef<HTMLInputElement | HTMLTextAreaElement | null>(null);

  const update = (key: number, change: Partial<Turn>) => setTurns((all) => all.map((turn) => (turn.key === key ? { ...turn, ...change } : turn)));

  const ask = async (question: string) => {
    const text = question.trim();
    if (!text || busy) return;
    const key = ++turnKeys;
    setTurns((all) => [...all, { key, question: text, answer: '', sources: [], done: false }]);
    setMessage('');
    setBusy(true);
    try {
      const response = await fetch(`/app/api${base}/chat`, {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-csrf-token': csrfToken },
        body: JSON.stringify({ message: text, conversationId: conversationId.current, stream: true, test: true }),
      });
      if (!response.ok || !response.body) {
        const body = await response.json().catch(() => undefined);
        throw new ApiError(response.status, body?.error?.code ?? 'internal_error', body?.error?.message ?? response.statusText, body?.error?.details ?? []);
      }
      let answer = '';
      let messageId: string | undefined;
      for await (const part of readParts(response.body)) {
        if (part.type === 'start' && part.messageMetadata) {
          const meta = part.messageMetadata as { conversationId: string; messageId: string; confidence: number; sources: AnswerSource[] };
          conversationId.current = meta.conversationId;
          messageId = meta.messageId;
          update(key, { messageId, confidence: meta.confidence, sources: meta.sources ?? [] });
        } else if (part.type === 'text-delta' && part.delta) {
          answer += part.delta;
          update(key, { answer });
        } else if (part.type === 'error') {
          throw new ApiError(0, 'internal_error', part.errorText ?? '');
        }
      }
      // Grounding is not in the stream (spec 4.7 rule 3): the conversation has it, with the final confidence.
      const conversation = await get<{ messages: { id: string; confidence?: number | null; grounding?: Turn['grounding'] }[] }>(`${base}/conversations/${encodeURIComponent(conversationId.current!)}`);
      const recorded = conversation.messages.find((m) => m.id === messageId);
      update(key, { done: true, grounding: recorded?.grounding ?? null, confidence: recorded?.confidence ?? undefined });
    } catch (error) {
      update(key, { done: true, error: asApiError(error) });
    } finally {
      setBusy(false);
      input.current?.focus();
    }
  };

  return (
    <section aria-labelledby="playground-title" class="playground">
      <h2 id="playground-title">{t('playground.title')}</h2>
      <p class="page-header-summary">{t('playground.intro')}</p>
      {agent?.useCase && <Suggestions useCase={agent.useCase} disabled={busy} onAsk={(question) => void ask(question)} />}
      <ol class="playground-log" aria-label={t('playground.conversation')}>
        {turns.map((turn) => (
          <li key={turn.key} class="playground-turn">
            <p class="playground-question">
              <span class="visually-hidden">{t('playground.you')}: </span>
              {turn.question}
            </p>
            <AnswerView agentId={agentId} turn={turn} />
          </li>
        ))}
      </ol>
      <Notice>{busy ? t('playground.answering') : undefined}</Notice>
      <form
        class="playground-form"
        onSubmit={(event) => {
          event.preventDefault();
          void ask(message);
        }}
      >
        <TextField label={t('playground.message')} value={message} onInput={setMessage} inputRef={input} />
        <div class="playground-actions">
          <Button kind="primary" type="submit" busy={busy}>
            {t('playground.send')}
          </Button>
          <Button
            kind="quiet"
            disabled={busy || turns.length === 0}
            onClick={() => {
              conversationId.current = undefined;
              setTurns([]);
            }}
          >
            {t('playground.newConversation')}
          </Button>
        </div>
      </form>
    </section>
  );
}

/** The preset's ten test questions (the last two should be declined), one click each. */
function Suggestions({ useCase, disabled, onAsk }: { useCase: string; disabled: boolean; onAsk: (question: string) => void }) {
  const guide = useData(() => get<SetupGuide>(`/v1/setup-guide?useCase=${encodeURIComponent(useCase)}`), [useCase]);
  const questions = guide.data?.presets[0]?.testQuestions ?? [];
  if (guide.error || questions.length === 0) return null;
  return (
    <details class="card playground-suggestions" open>
      <summary>{t('playground.suggestions')}</summary>
      <p class="field-hint">{t('playground.suggestionsHint')}</p>
      <ul lang="en">
        {questions.map((question, index) => (
          <li key={question}>
            <button type="button" class="btn btn-secondary" disabled={disabled} onClick={() => onAsk(question)}>
              {question}
            </button>
            {index >= questions.length - 2 && <span class="cell-note">{t('playground.shouldDecline')}</span>}
          </li>
        ))}
      </ul>
    </details>
  );
}

const GROUNDING_TONE = { supported: 'good', partial: 'busy', unsupported: 'bad' } as const;

function AnswerView({ agentId, turn }: { agentId: string; turn: Turn }) {
  if (turn.error) return <ErrorNotice error={turn.error} />;
  return (
    <div class="playground-answer" aria-busy={!turn.done || undefined}>
      <p class="playground-answer-text">
        <span class="visually-hidden">{t('playground.agent')}: </span>
        {turn.answer || (turn.done ? '' : t('playground.thinking'))}
      </p>
      {turn.done && (
        <>
          <p class="playground-meta">
            {turn.confidence !== undefined && <span>{t('playground.confidence', { value: formatNumber(turn.confidence) })}</span>}
            <span>
              {t('playground.grounding')}{' '}
              {turn.grounding ? <Badge tone={GROUNDING_TONE[turn.grounding]}>{t(`playground.grounding.${turn.grounding}`)}</Badge> : t('playground.grounding.none')}
            </span>
          </p>
          <div class="playground-sources">
            <h3 class="visually-hidden">{t('playground.sources')}</h3>
            {turn.sources.length === 0 ? (
              <p class="cell-note">{t('playground.noSources')}</p>
            ) : (
              <ul aria-label={t('playground.sources')}>
                {turn.sources.map((source) => (
                  <li key={source.id}>
                    <a href={/^https?:\/\//.test(source.url ?? '') ? source.url! : `/app/agents/${encodeURIComponent(agentId)}/sources`} target={source.url ? '_blank' : undefined} rel={source.url ? 'noopener noreferrer' : undefined}>
                      {source.name || source.url}
                    </a>{' '}
                    <span class="cell-note-inline">{t('playground.similarity', { value: formatNumber(Math.round(source.similarity * 100)) })}</span>
                  </li>
                ))}
              </ul>
            )}
          </div>
          {turn.messageId && <Correction agentId={agentId} messageId={turn.messageId} question={turn.question} answer={turn.answer} />}
        </>
      )}
    </div>
  );
}

/** "Correct this answer": what it should have said becomes a Q&A source (spec 4.8), followed until learned. */
function Correction({ agentId, messageId, question, answer }: { agentId: string; messageId: string; question: string; answer: string }) {
  const [open, setOpen] = useState(false);
  const [draft, setDraft] = useState({ question, answer });
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<ApiError | undefined>();
  const [source, setSource] = useState<Source | undefined>();
  const base = `/v1/agents/${encodeURIComponent(agentId)}`;

  const save = async () => {
    setSaving(true);
    setError(undefined);
    try {
      let created = await send<Source>('POST', `${base}/messages/${encodeURIComponent(messageId)}/correction`, draft);
      setSource(created);
      setOpen(false);
      // Followed until learned (a Q&A source is read in a moment).
      while (created.status === 'pending') {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        created = await get<Source>(`${base}/sources/${encodeURIComponent(created.id)}`);
        setSource(created);
      }
    } catch (caught) {
      setError(asApiError(caught));
    } finally {
      setSaving(false);
    }
  };

  if (source) {
    return (
      <Notice kind={source.status === 'failed' ? 'error' : source.status === 'ready' ? 'success' : 'info'}>
        {source.status === 'ready' ? t('playground.correction.learned') : source.status === 'failed' ? t('playground.correction.failed') : t('playground.correction.learning')}
      </Notice>
    );
  }
  if (!open) {
    return (
      <>
        <Button kind="quiet" onClick={() => setOpen(true)}>
          {t('playground.correct')}
        </Button>
        {error && <ErrorNotice error={error} />}
      </>
    );
  }
  return (
    <form
      class="card playground-correction"
      aria-label={t('playground.correct')}
      onSubmit={(event) => {
        event.preventDefault();
        void save();
      }}
    >
      <p class="field-hint">{t('playground.correction.hint')}</p>
      <TextField label={t('playground.correction.question')} value={draft.question} onInput={(value) => setDraft({ ...draft, question: value })} error={error?.field('question')} />
      <TextField label={t('playground.correction.answer')} value={draft.answer} onInput={(value) => setDraft({ ...draft, answer: value })} multiline rows={4} error={error?.field('answer')} />
      {error && !error.field('question') && !error.field('answer') && <ErrorNotice error={error} />}
      <div class="playground-actions">
        <Button kind="primary" type="submit" busy={saving}>
          {t('playground.correction.save')}
        </Button>
        <Button kind="quiet" onClick={() => setOpen(false)}>
          {t('app.cancel')}
        </Button>
      </div>
    </form>
  );
}
