/**
 * Settings, People (owners and admins): the members with their roles and agent limits,
 * invitations by mail (role, agents), a role changed, a person removed, and ownership
 * handed over by the owner with a confirmation (docs/people.md, "People").
 */
import { useState } from 'preact/hooks';
import { list, send, type ApiError } from '../../api.ts';
import { asApiError, useData } from '../../data.ts';
import { useSubmit } from '../../submit.ts';
import { formatDate, t } from '../../i18n/index.ts';
import type { PageProps } from '../../routes.ts';
import type { Agent, AgentNotifications, Invitation, Person, Role } from '../../types.ts';
import { Badge, Button, Dialog, EmptyState, ErrorNotice, Notice, Select, Table, TextField } from '../../components/index.ts';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { SettingsFrame } from '../settings/frame.tsx';
import { Notifications } from './notifications.tsx';


export default function PeoplePage({ me }: PageProps) {
  const people = useData(() => list<Person>('/people'), []);
  const agents = useData(() => list<Agent>('/v1/agents'), []);
  // Asked beside the people and the agents (one round trip), as is who is mailed about each agent.
  const invitations = useData(() => list<Invitation>('/invitations'), []);
  const notifications = useData(() => list<AgentNotifications>('/notifications'), []);
  // A change to the people changes who may be mailed (someone removed is mailed no more; a new owner is the default).
  const reloadPeople = () => {
    void people.reload();
    void notifications.reload();
  };
  const [inviting, setInviting] = useState(false);
  const [changing, setChanging] = useState<Person>();
  const [removing, setRemoving] = useState<Person>();
  const [handing, setHanding] = useState<Person>();
  const [message, setMessage] = useState<string>();
  const [error, setError] = useState<ApiError>();
  const agentName = (id: string) => agents.data?.find((a) => a.id === id)?.name ?? id;
  const open = invitations.data ?? [];

  const withdraw = async (invitation: Invitation) => {
    setError(undefined);
    try {
      await send('DELETE', `/invitations/${encodeURIComponent(invitation.email)}`);
      void invitations.reload();
      setMessage(t('people.withdrawn', { email: invitation.email }));
    } catch (caught) {
      setError(asApiError(caught));
    }
  };

  return (
    <SettingsFrame tab="people">
      <div class="section-head">
        <h2>{t('settings.people')}</h2>
        <Button kind="primary" onClick={() => setInviting(true)}>
          {t('people.invite')}
        </Button>
      </div>
      <Notice kind="success">{message}</Notice>
      {(people.error ?? invitations.error ?? error) && <ErrorNotice error={people.error ?? invitations.error ?? error} />}
      {people.data && (
        <Table
          caption={t('settings.people')}
          rows={people.data}
          rowKey={(person) => person.id}
          columns={[
            { label: t('people.person'), cell: (p) => (<>{p.name || p.email}{p.name && <span class="cell-note">{p.email}</span>}</>) },
            { label: t('people.role'), cell: (p) => <Badge tone={p.role === 'owner' ? 'good' : 'neutral'}>{t(`people.role.${p.role}`)}</Badge> },
            { label: t('people.agents'), cell: (p) => (p.agentIds === null ? t('people.allAgents') : p.agentIds.map(agentName).join(', ')) },
            { label: t('people.since'), cell: (p) => formatDate(p.since) },
            {
              label: t('people.actions'),
              cell: (p) =>
                p.role === 'owner' || p.id === me.person.id ? null : (
                  <div class="row-actions">
                    <Button kind="quiet" aria-label={t('people.changeRoleNamed', { name: p.name || p.email })} onClick={() => setChanging(p)}>
                      {t('people.changeRole')}
                    </Button>
                    {me.role === 'owner' && (
                      <Button kind="quiet" aria-label={t('people.makeOwnerNamed', { name: p.name || p.email })} onClick={() => setHanding(p)}>
                        {t('people.handOver')}
                      </Button>
                    )}
                    <Button kind="quiet" aria-label={t('people.removeNamed', { name: p.name || p.email })} onClick={() => setRemoving(p)}>
                      {t('people.remove')}
                    </Button>
                  </div>
                ),
            },
          ]}
        />
      )}
      {people.data === undefined && !people.error && <EmptyState title={t('app.loading')} />}
      {open.length > 0 && (
        <section aria-labelledby="people-invitations">
          <h3 id="people-invitations">{t('people.invitations')}</h3>
          <Table
            caption={t('people.invitations')}
            rows={open}
            rowKey={(i) => i.email}
            columns={[
              { label: t('people.email'), cell: (i) => i.email },
              { label: t('people.role'), cell: (i) => t(`people.role.${i.role}`) },
              { label: t('people.expires'), cell: (i) => formatDate(i.expiresAt) },
              {
                label: t('people.actions'),
                cell: (i) => (
                  <Button kind="quiet" aria-label={t('people.withdrawNamed', { email: i.email })} onClick={() => void withdraw(i)}>
                    {t('people.withdraw')}
                  </Button>
                ),
              },
            ]}
          />
        </section>
      )}
      {agents.data && people.data && <Notifications agents={agents.data} people={people.data} notifications={notifications} />}
      <RoleDialog
        open={inviting}
        title={t('people.invite')}
        agents={agents.data ?? []}
        withEmail
        submitLabel={t('people.sendInvitation')}
        onClose={() => setInviting(false)}
        onSubmit={async ({ email, role, agentIds }) => {
          const invitation = await send<Invitation>('POST', '/invitations', { email, role, ...(role === 'member' ? { agentIds } : {}) });
          void invitations.reload();
          setMessage(t('people.invited', { email: invitation.email }));
        }}
      />
      <RoleDialog
        open={changing !== undefined}
        title={changing ? t('people.changeRoleOf', { name: changing.name || changing.email }) : ''}
        agents={agents.data ?? []}
        initial={changing}
        submitLabel={t('settings.save')}
        onClose={() => setChanging(undefined)}
        onSubmit={async ({ role, agentIds }) => {
          await send('PATCH', `/people/${encodeURIComponent(changing!.id)}`, { role, ...(role === 'member' ? { agentIds } : {}) });
          setMessage(t('people.roleChanged', { name: changing!.name || changing!.email }));
          reloadPeople();
        }}
      />
      <ConfirmDialog
        open={removing !== undefined}
        title={removing ? t('people.removeNamed', { name: removing.name || removing.email }) : ''}
        text={t('people.removeWarning')}
        confirm={t('people.remove')}
        onClose={() => setRemoving(undefined)}
        onConfirm={async () => {
          const p = removing!;
          await send('DELETE', `/people/${encodeURIComponent(p.id)}`);
          setMessage(t('people.removed', { name: p.name || p.email }));
          reloadPeople();
        }}
      />
      <ConfirmDialog
        open={handing !== undefined}
        title={handing ? t('people.handOverTo', { name: handing.name || handing.email }) : ''}
        text={t('people.handOverWarning')}
        confirm={t('people.handOver')}
        onClose={() => setHanding(undefined)}
        onConfirm={async () => {
          await send('POST', '/ownership', { personId: handing!.id });
          // The owner is an admin now: their session's role changed with it.
          location.reload();
        }}
      />
    </SettingsFrame>
  );
}

interface RoleChoice {
  email: string;
  role: 'admin' | 'member';
  agentIds: string[] | null;
}

/** Role and agent limit (and the address, for an invitation). A member without ticked agents reaches every agent. */
function RoleDialog({ open, title, agents, initial, withEmail, submitLabel, onClose, onSubmit }: {
  open: boolean;
  title: string;
  agents: Agent[];
  initial?: Person;
  withEmail?: boolean;
  submitLabel: string;
  onClose: () => void;
  onSubmit: (choice: RoleChoice) => Promise<void>;
}) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<'admin' | 'member'>('member');
  const [limited, setLimited] = useState<string[]>([]);
  const [opened, setOpened] = useState(false);
  const { busy, error, setError, submit } = useSubmit(async () => {
    await onSubmit({ email, role, agentIds: limited.length ? limited : null });
    onClose();
  });
  if (open !== opened) {
    setOpened(open);
    if (open) {
      setEmail('');
      setRole(initial?.role === 'admin' ? 'admin' : 'member');
      setLimited(initial?.agentIds ?? []);
      setError(undefined);
    }
  }
  return (
    <Dialog open={open} title={title} onClose={onClose}>
      <form onSubmit={submit} noValidate>
        <ErrorNotice error={error && error.details.length === 0 ? error : undefined} />
        {withEmail && <TextField label={t('people.email')} type="email" autoComplete="off" value={email} onInput={setEmail} error={error?.field('email')} />}
        <Select label={t('people.role')} value={role} options={(['member', 'admin'] as const).map((value) => ({ value, label: t(`people.role.${value}`) }))} onChange={(value) => setRole(value as 'admin' | 'member')} error={error?.field('role')} />
        {role === 'member' && agents.length > 0 && (
          <fieldset class="people-agents">
            <legend>{t('people.limitTo')}</legend>
            <p class="field-hint">{t('people.limitHint')}</p>
            {agents.map((agent) => (
              <label key={agent.id} class="people-agent">
                <input
                  type="checkbox"
                  checked={limited.includes(agent.id)}
                  onChange={(event) => setLimited((all) => (event.currentTarget.checked ? [...all, agent.id] : all.filter((id) => id !== agent.id)))}
                />
                {agent.name}
              </label>
            ))}
            {error?.field('agentIds') && <p class="field-error">{error.field('agentIds')}</p>}
          </fieldset>
        )}
        <div class="form-actions">
          <Button kind="primary" type="submit" busy={busy}>
            {submitLabel}
          </Button>
          <Button onClick={onClose}>{t('app.cancel')}</Button>
        </div>
      </form>
    </Dialog>
  );
}
