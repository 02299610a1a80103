-- Analytics (issue 15, docs/analytics.md): daily figures per agent, kept by triggers in the same
-- transaction as the conversations, messages and widget events they count, so a period of a year
-- is read from at most 366 rows per agent. Test conversations (channel playground) count only in
-- test_conversations. Erasing a conversation takes its whole contribution back out.
-- Every message updates its day's row, so the tables leave room on each page (fillfactor) for
-- heap-only updates, which the next reader of the page prunes without waiting for a vacuum.

create table analytics_days (
  agent_id text not null references agents(id) on delete cascade,
  day date not null,
  conversations integer not null default 0,
  test_conversations integer not null default 0,
  widget_conversations integer not null default 0,
  widget_conversations_launcher integer not null default 0,
  widget_conversations_greeting integer not null default 0,
  widget_conversations_nudge integer not null default 0,
  questions integer not null default 0,
  answers integer not null default 0,
  helpful integer not null default 0,
  not_helpful integer not null default 0,
  -- Of answers with a confidence.
  confidence_sum bigint not null default 0,
  confidence_count integer not null default 0,
  weak integer not null default 0,
  band_high integer not null default 0,
  band_medium integer not null default 0,
  band_low integer not null default 0,
  opened integer not null default 0,
  opened_launcher integer not null default 0,
  opened_greeting integer not null default 0,
  opened_nudge integer not null default 0,
  lead_forms_declined integer not null default 0,
  primary key (agent_id, day)
) with (fillfactor = 50);

-- Questions per day grouped by their key (analytics_question_key); text is one of the group's questions.
create table analytics_questions (
  agent_id text not null references agents(id) on delete cascade,
  day date not null,
  key text not null,
  text text not null,
  count integer not null,
  primary key (agent_id, day, key)
) with (fillfactor = 50);

-- The page each widget conversation started on (its first question's page), per day.
create table analytics_start_pages (
  agent_id text not null references agents(id) on delete cascade,
  day date not null,
  url text not null,
  count integer not null,
  primary key (agent_id, day, url)
) with (fillfactor = 50);

-- The weakest answers are read from messages, lowest confidence first.
create index messages_agent_weakest on messages (agent_id, confidence, created_at desc)
  where role = 'assistant' and confidence is not null and correction_source_id is null;
create index messages_agent_day on messages (agent_id, created_at);

-- Similar questions share a key: lower-case words (letters and digits of any script), sorted, so case,
-- punctuation and word order do not split them.
create function analytics_question_key(question text) returns text language sql immutable parallel safe as $$
  select coalesce(string_agg(word, ' ' order by word), '')
  from regexp_split_to_table(lower(question), '[^[:alnum:]\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff]+') as word
  where word <> ''
$$;

create function analytics_utc_day(at timestamptz) returns date language sql immutable parallel safe as $$
  select (at at time zone 'UTC')::date
$$;

-- The weak rule (src/modules/analytics/rules.ts): confidence below 50, or no sources.
create function analytics_is_weak(confidence integer, sources jsonb) returns boolean language sql immutable parallel safe as $$
  select (confidence is not null and confidence < 50) or coalesce(jsonb_array_length(sources), 0) = 0
$$;

-- Adds `delta` (a row whose numbers are added; nulls count as 0) to the agent's day.
create function analytics_add(delta analytics_days) returns void language plpgsql as $$
begin
  insert into analytics_days values (
    delta.agent_id, delta.day,
    coalesce(delta.conversations, 0), coalesce(delta.test_conversations, 0), coalesce(delta.widget_conversations, 0),
    coalesce(delta.widget_conversations_launcher, 0), coalesce(delta.widget_conversations_greeting, 0), coalesce(delta.widget_conversations_nudge, 0),
    coalesce(delta.questions, 0), coalesce(delta.answers, 0), coalesce(delta.helpful, 0), coalesce(delta.not_helpful, 0),
    coalesce(delta.confidence_sum, 0), coalesce(delta.confidence_count, 0), coalesce(delta.weak, 0),
    coalesce(delta.band_high, 0), coalesce(delta.band_medium, 0), coalesce(delta.band_low, 0),
    coalesce(delta.opened, 0), coalesce(delta.opened_launcher, 0), coalesce(delta.opened_greeting, 0), coalesce(delta.opened_nudge, 0),
    coalesce(delta.lead_forms_declined, 0))
  on conflict (agent_id, day) do update set
    conversations = analytics_days.conversations + excluded.conversations,
    test_conversations = analytics_days.test_conversations + excluded.test_conversations,
    widget_conversations = analytics_days.widget_conversations + excluded.widget_conversations,
    widget_conversations_launcher = analytics_days.widget_conversations_launcher + excluded.widget_conversations_launcher,
    widget_conversations_greeting = analytics_days.widget_conversations_greeting + excluded.widget_conversations_greeting,
    widget_conversations_nudge = analytics_days.widget_conversations_nudge + excluded.widget_conversations_nudge,
    questions = analytics_days.questions + excluded.questions,
    answers = analytics_days.answers + excluded.answers,
    helpful = analytics_days.helpful + excluded.helpful,
    not_helpful = analytics_days.not_helpful + excluded.not_helpful,
    confidence_sum = analytics_days.confidence_sum + excluded.confidence_sum,
    confidence_count = analytics_days.confidence_count + excluded.confidence_count,
    weak = analytics_days.weak + excluded.weak,
    band_high = analytics_days.band_high + excluded.band_high,
    band_medium = analytics_days.band_medium + excluded.band_medium,
    band_low = analytics_days.band_low + excluded.band_low,
    opened = analytics_days.opened + excluded.opened,
    opened_launcher = analytics_days.opened_launcher + excluded.opened_launcher,
    opened_greeting = analytics_days.opened_greeting + excluded.opened_greeting,
    opened_nudge = analytics_days.opened_nudge + excluded.opened_nudge,
    lead_forms_declined = analytics_days.lead_forms_declined + excluded.lead_forms_declined;
end
$$;

-- A conversation's own counts (on the day it started), with sign +1 or -1.
create function analytics_conversation(c conversations, sign integer) returns void language plpgsql as $$
declare
  d analytics_days;
  widget boolean := c.channel in ('widget', 'iframe');
begin
  d.agent_id := c.agent_id;
  d.day := analytics_utc_day(c.started_at);
  if c.channel = 'playground' then
    d.test_conversations := sign;
  else
    d.conversations := sign;
    if widget then
      d.widget_conversations := sign;
      d.widget_conversations_launcher := case when c.opened_by = 'launcher' then sign end;
      d.widget_conversations_greeting := case when c.opened_by = 'greeting' then sign end;
      d.widget_conversations_nudge := case when c.opened_by = 'nudge' then sign end;
    end if;
  end if;
  perform analytics_add(d);
end
$$;

-- An answer's counts (on the day it was given), with sign +1 or -1.
create function analytics_answer(m messages, sign integer) returns void language plpgsql as $$
declare
  d analytics_days;
begin
  d.agent_id := m.agent_id;
  d.day := analytics_utc_day(m.created_at);
  d.answers := sign;
  d.helpful := case when m.feedback = 1 then sign end;
  d.not_helpful := case when m.feedback = -1 then sign end;
  d.weak := case when analytics_is_weak(m.confidence, m.sources) then sign end;
  if m.confidence is not null then
    d.confidence_sum := sign * m.confidence;
    d.confidence_count := sign;
    d.band_high := case when m.confidence >= 80 then sign end;
    d.band_medium := case when m.confidence >= 50 and m.confidence < 80 then sign end;
    d.band_low := case when m.confidence < 50 then sign end;
  end if;
  perform analytics_add(d);
end
$$;

-- A question's counts, its group and (for the first question of a widget conversation) its start page.
create function analytics_question(m messages, channel text, sign integer) returns void language plpgsql as $$
declare
  d analytics_days;
  question_key text := analytics_question_key(m.content);
  left_over analytics_questions;
begin
  d.agent_id := m.agent_id;
  d.day := analytics_utc_day(m.created_at);
  d.questions := sign;
  perform analytics_add(d);
  if sign > 0 then
    insert into analytics_questions values (m.agent_id, d.day, question_key, m.content, 1)
    on conflict (agent_id, day, key) do update set count = analytics_questions.count + 1;
  else
    update analytics_questions set count = count - 1
    where agent_id = m.agent_id and day = d.day and key = question_key
    returning * into left_over;
    if left_over.count <= 0 then
      delete from analytics_questions where agent_id = m.agent_id and day = d.day and key = question_key;
    elsif left_over.text = m.content then
      -- The erased question's words leave with it: another question of the group stands for it.
      update analytics_questions set text = coalesce((
        select q.content from messages q join conversations c on c.id = q.conversation_id
        where q.agent_id = m.agent_id and q.role = 'user' and q.conversation_id <> m.conversation_id
          and q.created_at >= d.day::timestamp at time zone 'UTC' and q.created_at < (d.day + 1)::timestamp at time zone 'UTC'
          and c.channel <> 'playground' and analytics_question_key(q.content) = question_key
        limit 1), text)
      where agent_id = m.agent_id and day = d.day and key = question_key;
    end if;
  end if;
  if m.position = 0 and channel in ('widget', 'iframe') and m.page_url is not null then
    insert into analytics_start_pages values (m.agent_id, d.day, m.page_url, sign)
    on conflict (agent_id, day, url) do update set count = analytics_start_pages.count + excluded.count;
    delete from analytics_start_pages where agent_id = m.agent_id and day = d.day and url = m.page_url and count <= 0;
  end if;
end
$$;

create function analytics_conversations_insert() returns trigger language plpgsql as $$
begin
  perform analytics_conversation(new, 1);
  return null;
end
$$;
create trigger analytics_conversations_insert after insert on conversations
  for each row execute function analytics_conversations_insert();

-- Before the row goes, while its messages are still there. An agent (or workspace) being deleted
-- takes its figures with it: nothing to take out then.
create function analytics_conversations_delete() returns trigger language plpgsql as $$
declare
  m messages;
begin
  if not exists (select 1 from agents where id = old.agent_id) then return old; end if;
  perform analytics_conversation(old, -1);
  if old.channel <> 'playground' then
    for m in select * from messages where conversation_id = old.id loop
      if m.role = 'user' then perform analytics_question(m, old.channel, -1); else perform analytics_answer(m, -1); end if;
    end loop;
  end if;
  return old;
end
$$;
create trigger analytics_conversations_delete before delete on conversations
  for each row execute function analytics_conversations_delete();

create function analytics_messages_insert() returns trigger language plpgsql as $$
declare
  conversation_channel text;
begin
  select channel into conversation_channel from conversations where id = new.conversation_id;
  if conversation_channel is null or conversation_channel = 'playground' then return null; end if;
  if new.role = 'user' then perform analytics_question(new, conversation_channel, 1); else perform analytics_answer(new, 1); end if;
  return null;
end
$$;
create trigger analytics_messages_insert after insert on messages
  for each row execute function analytics_messages_insert();

-- The grounding check changes an answer's confidence; a visitor gives or clears feedback.
create function analytics_messages_update() returns trigger language plpgsql as $$
begin
  if new.role <> 'assistant' then return null; end if;
  if not exists (select 1 from conversations where id = new.conversation_id and channel <> 'playground') then return null; end if;
  perform analytics_answer(old, -1);
  perform analytics_answer(new, 1);
  return null;
end
$$;
create trigger analytics_messages_update after update of confidence, sources, feedback on messages
  for each row when (old.confidence is distinct from new.confidence or old.sources is distinct from new.sources or old.feedback is distinct from new.feedback)
  execute function analytics_messages_update();

create function analytics_visitor_event(e visitor_events) returns void language plpgsql as $$
declare
  d analytics_days;
begin
  d.agent_id := e.agent_id;
  d.day := analytics_utc_day(e.created_at);
  if e.type = 'opened' then
    d.opened := 1;
    d.opened_launcher := case when e.opened_by = 'launcher' then 1 end;
    d.opened_greeting := case when e.opened_by = 'greeting' then 1 end;
    d.opened_nudge := case when e.opened_by = 'nudge' then 1 end;
  elsif e.type = 'lead_form_declined' then
    d.lead_forms_declined := 1;
  end if;
  perform analytics_add(d);
end
$$;

create function analytics_visitor_events_insert() returns trigger language plpgsql as $$
begin
  perform analytics_visitor_event(new);
  return null;
end
$$;
create trigger analytics_visitor_events_insert after insert on visitor_events
  for each row execute function analytics_visitor_events_insert();

-- What is already there.
do $$
declare
  c conversations;
  m messages;
  e visitor_events;
begin
  for c in select * from conversations loop perform analytics_conversation(c, 1); end loop;
  for c in select * from conversations where channel <> 'playground' loop
    for m in select * from messages where conversation_id = c.id loop
      if m.role = 'user' then perform analytics_question(m, c.channel, 1); else perform analytics_answer(m, 1); end if;
    end loop;
  end loop;
  for e in select * from visitor_events loop perform analytics_visitor_event(e); end loop;
end
$$;
