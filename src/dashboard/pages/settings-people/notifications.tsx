/**
 * Who is e-mailed each new lead and ticket, per agent (GET /app/api/notifications for every agent at
 * once, PUT /app/api/agents/{id}/notifications; docs/people.md "Notifications"): the people chosen, or
 * the default (the owner).
 */
import { useState } from 'preact/hooks';
import { send } from '../../api.ts';
import type { Loaded } from '../../data.ts';
import { useSubmit } from '../../submit.ts';
import { t } from '../../i18n/index.ts';
import type { Agent, AgentNotifications } from '../../types.ts';
import { Button, Dialog, ErrorNotice, Notice, Table } from '../../components/index.ts';

type Recipients = AgentNotifications['leads'];

type Kind = 'leads' | 'tickets';
const KINDS: Kind[] = ['leads', 'tickets'];

/** notifications: GET /app/api/notifications, asked by the page beside the people and the agents. */
export function Notifications({ agents, people, notifications }: { agents: Agent[]; people: { id: string; email: string; name: string }[]; notifications: Loaded<AgentNotifications[]> }) {
  const [editing, setEditing] = useState<{ agent: Agent; current: AgentNotifications }>();
  const [message, setMessage] = useState<string>();
  if (agents.length === 0) return null;
  const describe = (recipients: Recipients) =>
    recipients.chosen ? (recipients.people.length ? recipients.people.map((p) => p.name || p.email).join(', ') : t('notify.noOne')) : t('notify.default', { names: recipients.people.map((p) => p.name || p.email).join(', ') || t('notify.noOne') });
  return (
    <section class="card" aria-labelledby="people-notifications">
      <h3 id="people-notifications">{t('notify.title')}</h3>
      <p>{t('notify.intro')}</p>
      <Notice kind="success">{message}</Notice>
      <ErrorNotice error={notifications.error} />
      {notifications.data && (
        <Table
          caption={t('notify.title')}
          rows={notifications.data.filter((row) => agents.some((agent) => agent.id === row.agentId))}
          rowKey={(row) => row.agentId}
          columns={[
            { label: t('settings.agent'), cell: (row) => agents.find((a) => a.id === row.agentId)?.name ?? row.agentId },
            { label: t('notify.leads'), cell: (row) => describe(row.leads) },
            { label: t('notify.tickets'), cell: (row) => describe(row.tickets) },
            {
              label: t('people.actions'),
              cell: (row) => {
                const agent = agents.find((a) => a.id === row.agentId)!;
                return (
                  <Button kind="quiet" aria-label={t('notify.changeFor', { name: agent.name })} onClick={() => setEditing({ agent, current: row })}>
                    {t('notify.change')}
                  </Button>
                );
              },
            },
          ]}
        />
      )}
      <RecipientsDialog
        editing={editing}
        people={people}
        onClose={() => setEditing(undefined)}
        onSaved={(agent) => {
          setMessage(t('notify.saved', { name: agent.name }));
          void notifications.reload();
        }}
      />
    </section>
  );
}

function RecipientsDialog({ editing, people, onClose, onSaved }: {
  editing: { agent: Agent; current: AgentNotifications } | undefined;
  people: { id: string; email: string; name: string }[];
  onClose: () => void;
  onSaved: (agent: Agent) => void;
}) {
  const [choice, setChoice] = useState<Record<Kind, string[] | null>>({ leads: null, tickets: null });
  const [opened, setOpened] = useState<typeof editing>();
  const { busy, error, setError, submit } = useSubmit(async () => {
    await send('PUT', `/agents/${encodeURIComponent(editing!.agent.id)}/notifications`, choice);
    onClose();
    onSaved(editing!.agent);
  });
  if (editing !== opened) {
    setOpened(editing);
    if (editing) {
      setChoice({
        leads: editing.current.leads.chosen ? editing.current.leads.people.map((p) => p.id) : null,
        tickets: editing.current.tickets.chosen ? editing.current.tickets.people.map((p) => p.id) : null,
      });
      setError(undefined);
    }
  }
  return (
    <Dialog open={editing !== undefined} title={editing ? t('notify.changeFor', { name: editing.agent.name }) : ''} onClose={onClose}>
      <form onSubmit={submit} noValidate>
        <ErrorNotice error={error} />
        {KINDS.map((kind) => (
          <fieldset key={kind} class="people-agents">
            <legend>{t(kind === 'leads' ? 'notify.leads' : 'notify.tickets')}</legend>
            <label class="people-agent">
              <input type="radio" name={`notify-${kind}`} checked={choice[kind] === null} onChange={() => setChoice({ ...choice, [kind]: null })} />
              {t('notify.theOwner')}
            </label>
            <label class="people-agent">
              <input type="radio" name={`notify-${kind}`} checked={choice[kind] !== null} onChange={() => setChoice({ ...choice, [kind]: choice[kind] ?? [] })} />
              {t('notify.these')}
            </label>
            {choice[kind] !== null &&
              people.map((person) => (
                <label key={person.id} class="people-agent notify-person">
                  <input
                    type="checkbox"
                    checked={choice[kind]!.includes(person.id)}
                    onChange={(e) => {
                      const checked = e.currentTarget.checked;
                      setChoice((all) => ({ ...all, [kind]: checked ? [...(all[kind] ?? []), person.id] : (all[kind] ?? []).filter((id) => id !== person.id) }));
                    }}
                  />
                  {person.name ? `${person.name} (${person.email})` : person.email}
                </label>
              ))}
          </fieldset>
        ))}
        <div class="form-actions">
          <Button kind="primary" type="submit" busy={busy}>
            {t('settings.save')}
          </Button>
          <Button onClick={onClose}>{t('app.cancel')}</Button>
        </div>
      </form>
    </Dialog>
  );
}
