/**
 * API keys (owners and admins): the live keys; "Create key" (name, scope, optionally one agent),
 * the new key shown once in the page with a copy button; revoke after a confirmation. Below
 * Studio keys cannot be made (the API answers 402 api_not_in_plan): a plain explanation instead.
 */
import { useRef, useState } from 'preact/hooks';
import { call, list, send } from '../../api.ts';
import { asApiError, useData } from '../../data.ts';
import { useSubmit } from '../../submit.ts';
import { formatDate, t } from '../../i18n/index.ts';
import type { PageProps } from '../../routes.ts';
import type { Agent, CreatedKey as NewKey, ListedKey as Key } from '../../types.ts';
import { Button, Dialog, EmptyState, ErrorNotice, Notice, PageHeader, Select, Table, TextField } from '../../components/index.ts';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';

const SCOPES = ['read', 'chat', 'manage'] as const;
/** The plans without the API (spec 5.5: Studio and up). */
const WITHOUT_API = ['free', 'starter'];

export default function KeysPage({ me }: PageProps) {
  const keys = useData(() => call<{ data: Key[] }>('GET', '/keys').then((reply) => reply.data), []);
  const agents = useData(() => list<Agent>('/v1/agents'), []);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<NewKey>();
  const [revoking, setRevoking] = useState<Key>();
  const [message, setMessage] = useState<string>();
  const [notInPlan, setNotInPlan] = useState(WITHOUT_API.includes(me.workspace.plan));
  const agentName = (id: string | null) => (id === null ? t('keys.allAgents') : (agents.data?.find((agent) => agent.id === id)?.name ?? id));

  if (notInPlan) {
    return (
      <>
        <PageHeader title={t('keys.title')} />
        <div class="card">
          <h2>{t('keys.notInPlanTitle')}</h2>
          <p>{t('keys.notInPlan')}</p>
          <p>{t('keys.notInPlanDashboard')}</p>
        </div>
      </>
    );
  }
  return (
    <>
      <PageHeader
        title={t('keys.title')}
        actions={
          <Button kind="primary" onClick={() => setCreating(true)}>
            {t('keys.create')}
          </Button>
        }
      >
        <p>{t('keys.intro')}</p>
      </PageHeader>
      <Notice kind="success">{message}</Notice>
      {created && <NewKeyShown created={created} onDone={() => setCreated(undefined)} />}
      {keys.error && <ErrorNotice error={keys.error} />}
      {keys.data && keys.data.length === 0 && <EmptyState title={t('keys.empty')} />}
      {keys.data && keys.data.length > 0 && (
        <Table
          caption={t('keys.title')}
          rows={keys.data}
          rowKey={(key) => key.id}
          columns={[
            { label: t('keys.name'), cell: (key) => key.name },
            { label: t('keys.prefix'), cell: (key) => <code>{key.prefix}…</code> },
            { label: t('keys.scope'), cell: (key) => t(`keys.scope.${key.scope}`) },
            { label: t('keys.agent'), cell: (key) => agentName(key.agentId) },
            { label: t('keys.created'), cell: (key) => formatDate(key.createdAt) },
            ...(keys.data.some((key) => 'lastUsedAt' in key) ? [{ label: t('keys.lastUsed'), cell: (key: Key) => (key.lastUsedAt ? formatDate(key.lastUsedAt) : t('keys.never')) }] : []),
            {
              label: t('keys.actions'),
              cell: (key) => (
                <Button kind="quiet" aria-label={t('keys.revokeNamed', { name: key.name })} onClick={() => setRevoking(key)}>
                  {t('keys.revoke')}
                </Button>
              ),
            },
          ]}
        />
      )}
      {!keys.data && !keys.error && <p role="status">{t('app.loading')}</p>}
      <CreateKeyDialog
        open={creating}
        agents={agents.data ?? []}
        onClose={() => setCreating(false)}
        onNotInPlan={() => setNotInPlan(true)}
        onCreated={(key) => {
          setMessage(undefined);
          setCreated(key);
          void keys.reload();
        }}
      />
      <ConfirmDialog
        open={revoking !== undefined}
        title={revoking ? t('keys.revokeTitle', { name: revoking.name }) : ''}
        text={t('keys.revokeText')}
        confirm={t('keys.revoke')}
        onClose={() => setRevoking(undefined)}
        onConfirm={async () => {
          const key = revoking!;
          await send('DELETE', `/keys/${encodeURIComponent(key.id)}`);
          setMessage(t('keys.revoked', { name: key.name }));
          void keys.reload();
        }}
      />
    </>
  );
}

/** The new key, shown this once: a read-only box to select it and a copy button. */
function NewKeyShown({ created, onDone }: { created: NewKey; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  const box = useRef<HTMLInputElement>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(created.key);
      setCopied(true);
    } catch {
      box.current?.select();
    }
  };
  return (
    <section class="card keys-new" aria-labelledby="keys-new-title">
      <h2 id="keys-new-title">{t('keys.newTitle', { name: created.name })}</h2>
      <p>{t('keys.newOnce')}</p>
      <p class="keys-new-plain">
        <code>{created.key}</code>
      </p>
      <div class="keys-new-value">
        <label for="keys-new-key" class="visually-hidden">
          {t('keys.newKey')}
        </label>
        <input id="keys-new-key" ref={box} readOnly value={created.key} onFocus={(event) => event.currentTarget.select()} />
        <Button onClick={() => void copy()}>{t('keys.copy')}</Button>
      </div>
      <Notice kind="success">{copied ? t('keys.copied') : undefined}</Notice>
      <Button onClick={onDone}>{t('keys.done')}</Button>
    </section>
  );
}

function CreateKeyDialog({ open, agents, onClose, onCreated, onNotInPlan }: { open: boolean; agents: Agent[]; onClose: () => void; onCreated: (key: NewKey) => void; onNotInPlan: () => void }) {
  const [name, setName] = useState('');
  const [scope, setScope] = useState<string>('read');
  const [agentId, setAgentId] = useState('');
  const { busy, error, setError, submit } = useSubmit(async () => {
    try {
      const key = await send<NewKey>('POST', '/keys', { name, scope, ...(agentId ? { agentId } : {}) });
      setName('');
      setScope('read');
      setAgentId('');
      close();
      onCreated(key);
    } catch (caught) {
      if (asApiError(caught).code !== 'api_not_in_plan') throw caught;
      close();
      onNotInPlan();
    }
  });
  const close = () => {
    setError(undefined);
    onClose();
  };
  const fieldErrors = ['name', 'scope', 'agentId'];
  return (
    <Dialog open={open} title={t('keys.create')} onClose={close}>
      <form onSubmit={submit} noValidate>
        <ErrorNotice error={error && !fieldErrors.some((field) => error.field(field)) ? error : undefined} />
        <TextField label={t('keys.name')} value={name} onInput={setName} error={error?.field('name')} hint={t('keys.nameHint')} autoComplete="off" />
        <Select label={t('keys.scope')} value={scope} options={SCOPES.map((value) => ({ value, label: `${t(`keys.scope.${value}`)}: ${t(`keys.scopeHint.${value}`)}` }))} onChange={setScope} error={error?.field('scope')} />
        <Select
          label={t('keys.agent')}
          hint={t('keys.agentHint')}
          value={agentId}
          options={[{ value: '', label: t('keys.allAgents') }, ...agents.map((agent) => ({ value: agent.id, label: agent.name }))]}
          onChange={setAgentId}
          error={error?.field('agentId')}
        />
        <div class="form-actions">
          <Button kind="primary" type="submit" busy={busy}>
            {t('keys.createButton')}
          </Button>
          <Button onClick={close}>{t('app.cancel')}</Button>
        </div>
      </form>
    </Dialog>
  );
}
