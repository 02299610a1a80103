-- An agent's day of analytics kept in a few rows (slots) instead of one (issue 27, capacity; docs/performance.md
-- "Capacity", sixth round). Every answer of an agent added to its one analytics_days row and held that row's lock
-- until its commit, so the agent's concurrent answers committed one after the other (7.4 ms of lock wait an upsert
-- with four writers). A transaction now adds to the slot its own transaction id chooses (a hash of the id, modulo
-- 16; hashed, as each answer also takes an id for its charge, so the recordings' ids alone would often share their
-- low bits): the answers running together mostly land on different rows (16 rather than 8: with 8 writers at once,
-- 34 to 63% of the busy backends still waited on a lock with 8 slots, 19 to 36% with 16), while one transaction
-- always uses one slot (its conversation's and its messages' figures, an erasure's take-backs), so it locks one row
-- of a day and two transactions cannot deadlock over the slots. Readers sum the slots of a day
-- (src/modules/analytics/store.ts); every figure is the same sum as before. A day has at most 16 rows on PostgreSQL,
-- one on the embedded store.

alter table analytics_days add column slot smallint not null default 0;
alter table analytics_days drop constraint analytics_days_pkey;
alter table analytics_days add primary key (agent_id, day, slot);

-- The current transaction's slot. Volatile (it reads the transaction's id), stable within a transaction. The number
-- of slots is the session's parley.analytics_slots (at most 16), which the PostgreSQL pool's connections set to 16
-- (src/platform/db.ts); a session without it (the embedded store's one connection, where nothing runs at once, or
-- psql) adds to slot 0 alone, so a day there stays one row.
create function analytics_slot() returns smallint language sql volatile parallel unsafe as $$
  select ((hashint8(txid_current())::bigint & 2147483647)
    % least(16, greatest(1, coalesce(nullif(current_setting('parley.analytics_slots', true), ''), '1')::integer)))::smallint
$$;

-- Adds `delta` (a row whose numbers are added; nulls count as 0) to the agent's day, in this transaction's slot.
create or replace function analytics_add(delta analytics_days) returns void language plpgsql as $$
begin
  insert into analytics_days (agent_id, day, slot, conversations, test_conversations, widget_conversations,
    widget_conversations_launcher, widget_conversations_greeting, widget_conversations_nudge, questions, answers,
    helpful, not_helpful, confidence_sum, confidence_count, weak, band_high, band_medium, band_low, opened,
    opened_launcher, opened_greeting, opened_nudge, lead_forms_declined)
  values (
    delta.agent_id, delta.day, analytics_slot(),
    coalesce(delta.conversations, 0), coalesce(delta.test_conversations, 0), coalesce(delta.widget_conversations, 0),
    coalesce(delta.widget_conversations_launcher, 0), coalesce(delta.widget_conversations_greeting, 0), coalesce(delta.widget_conversations_nudge, 0),
    coalesce(delta.questions, 0), coalesce(delta.answers, 0), coalesce(delta.helpful, 0), coalesce(delta.not_helpful, 0),
    coalesce(delta.confidence_sum, 0), coalesce(delta.confidence_count, 0), coalesce(delta.weak, 0),
    coalesce(delta.band_high, 0), coalesce(delta.band_medium, 0), coalesce(delta.band_low, 0),
    coalesce(delta.opened, 0), coalesce(delta.opened_launcher, 0), coalesce(delta.opened_greeting, 0), coalesce(delta.opened_nudge, 0),
    coalesce(delta.lead_forms_declined, 0))
  on conflict (agent_id, day, slot) do update set
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

-- Migration 045's messages' analytics, adding to this transaction's slot.
create or replace function analytics_messages_inserted() returns trigger language plpgsql as $$
begin
  -- Test conversations (playground) and messages whose conversation is gone count nowhere.
  with counted as materialized (
    select m.agent_id, analytics_utc_day(m.created_at) as day, m.role, m.content, m.created_at, m.position, m.page_url,
      m.feedback, m.confidence, m.sources, c.channel
    from new_messages m join conversations c on c.id = m.conversation_id
    where c.channel <> 'playground'
  ),
  days as (
    insert into analytics_days as a (agent_id, day, slot, questions, answers, helpful, not_helpful, weak, confidence_sum,
      confidence_count, band_high, band_medium, band_low)
    select agent_id, day, analytics_slot(),
      count(*) filter (where role = 'user'),
      count(*) filter (where role <> 'user'),
      count(*) filter (where role <> 'user' and feedback = 1),
      count(*) filter (where role <> 'user' and feedback = -1),
      count(*) filter (where role <> 'user' and analytics_is_weak(confidence, sources)),
      coalesce(sum(confidence) filter (where role <> 'user'), 0),
      count(confidence) filter (where role <> 'user'),
      count(*) filter (where role <> 'user' and confidence >= 80),
      count(*) filter (where role <> 'user' and confidence >= 50 and confidence < 80),
      count(*) filter (where role <> 'user' and confidence < 50)
    from counted group by agent_id, day
    on conflict (agent_id, day, slot) do update set
      questions = a.questions + excluded.questions,
      answers = a.answers + excluded.answers,
      helpful = a.helpful + excluded.helpful,
      not_helpful = a.not_helpful + excluded.not_helpful,
      weak = a.weak + excluded.weak,
      confidence_sum = a.confidence_sum + excluded.confidence_sum,
      confidence_count = a.confidence_count + excluded.confidence_count,
      band_high = a.band_high + excluded.band_high,
      band_medium = a.band_medium + excluded.band_medium,
      band_low = a.band_low + excluded.band_low
  ),
  -- A group keeps the words of its first question (as the row trigger's insert did).
  questions as (
    insert into analytics_questions as q (agent_id, day, key, text, count)
    select agent_id, day, analytics_question_key(content), (array_agg(content order by created_at, position))[1], count(*)
    from counted where role = 'user'
    group by agent_id, day, analytics_question_key(content)
    on conflict (agent_id, day, key) do update set count = q.count + excluded.count
  )
  insert into analytics_start_pages as p (agent_id, day, url, count)
  select agent_id, day, page_url, count(*)
  from counted where channel in ('widget', 'iframe') and role = 'user' and position = 0 and page_url is not null
  group by agent_id, day, page_url
  on conflict (agent_id, day, url) do update set count = p.count + excluded.count;
  return null;
end
$$;

-- Migration 045's new conversation's own counts, adding to this transaction's slot.
create or replace function analytics_conversations_inserted() returns trigger language plpgsql as $$
begin
  insert into analytics_days as a (agent_id, day, slot, conversations, test_conversations, widget_conversations,
    widget_conversations_launcher, widget_conversations_greeting, widget_conversations_nudge)
  select c.agent_id, analytics_utc_day(c.started_at), analytics_slot(),
    count(*) filter (where c.channel <> 'playground'),
    count(*) filter (where c.channel = 'playground'),
    count(*) filter (where c.channel in ('widget', 'iframe')),
    count(*) filter (where c.channel in ('widget', 'iframe') and c.opened_by = 'launcher'),
    count(*) filter (where c.channel in ('widget', 'iframe') and c.opened_by = 'greeting'),
    count(*) filter (where c.channel in ('widget', 'iframe') and c.opened_by = 'nudge')
  from new_conversations c
  group by c.agent_id, analytics_utc_day(c.started_at)
  on conflict (agent_id, day, slot) do update set
    conversations = a.conversations + excluded.conversations,
    test_conversations = a.test_conversations + excluded.test_conversations,
    widget_conversations = a.widget_conversations + excluded.widget_conversations,
    widget_conversations_launcher = a.widget_conversations_launcher + excluded.widget_conversations_launcher,
    widget_conversations_greeting = a.widget_conversations_greeting + excluded.widget_conversations_greeting,
    widget_conversations_nudge = a.widget_conversations_nudge + excluded.widget_conversations_nudge;
  return null;
end
$$;
