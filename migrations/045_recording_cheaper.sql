-- Recording an answer made cheaper for the database (issue 27, capacity; docs/performance.md "Capacity",
-- fifth round). The triggers of migrations 015, 036 and 038 were about half of the database's work an answer.
--
-- The folding's translate compared every character of a text with each of the 70 it maps (most of the
-- search words' cost: about 0.5 ms for an answer of 120 words); a text holding none of them is left as it is.
-- The result is the same. PL/pgSQL, compiled once a session: an SQL function that names the folded text
-- twice is not inlined, and would then be parsed and planned again at every recording.
create or replace function conversation_search_fold(content text) returns text language plpgsql immutable parallel safe as $$
declare
  folded text := replace(replace(replace(replace(replace(replace(
      regexp_replace(normalize(lower(content), NFD), '[\u0300-\u036f]', '', 'g'),
      'ß', 'ss'), 'æ', 'ae'), 'œ', 'oe'), 'Æ', 'ae'), 'Œ', 'oe'), 'ẞ', 'ss');
begin
  if folded ~ '[øØłŁđĐħĦıАБВГДЕЖЗИКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩς]' then
    return translate(folded,
      'øØłŁđĐħĦıАБВГДЕЖЗИКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩς',
      'oollddhhiабвгдежзиклмнопрстуфхцчшщъыьэюяαβγδεζηθικλμνξοπρστυφχψωσ');
  end if;
  return folded;
end
$$;

-- The analytics of new messages: one statement over the transition table (the conversation's channel read
-- once a message), the agent's days upserted directly with the message figures alone, instead of a loop
-- calling analytics_add (a row of every figure) for each day and two more statements for the question groups
-- and start pages. The figures are the same (src/modules/chat/recording.test.ts).
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
    insert into analytics_days as a (agent_id, day, questions, answers, helpful, not_helpful, weak, confidence_sum,
      confidence_count, band_high, band_medium, band_low)
    select agent_id, day,
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
    on conflict (agent_id, day) do update set
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

-- A new conversation's own counts: one upsert of the figures it changes, once per statement, instead of
-- analytics_conversation and analytics_add (a row of every figure) for each row.
drop trigger analytics_conversations_insert on conversations;
drop function analytics_conversations_insert();
create function analytics_conversations_inserted() returns trigger language plpgsql as $$
begin
  insert into analytics_days as a (agent_id, day, conversations, test_conversations, widget_conversations,
    widget_conversations_launcher, widget_conversations_greeting, widget_conversations_nudge)
  select c.agent_id, analytics_utc_day(c.started_at),
    count(*) filter (where c.channel <> 'playground'),
    count(*) filter (where c.channel = 'playground'),
    count(*) filter (where c.channel in ('widget', 'iframe')),
    count(*) filter (where c.channel in ('widget', 'iframe') and c.opened_by = 'launcher'),
    count(*) filter (where c.channel in ('widget', 'iframe') and c.opened_by = 'greeting'),
    count(*) filter (where c.channel in ('widget', 'iframe') and c.opened_by = 'nudge')
  from new_conversations c
  group by c.agent_id, analytics_utc_day(c.started_at)
  on conflict (agent_id, day) do update set
    conversations = a.conversations + excluded.conversations,
    test_conversations = a.test_conversations + excluded.test_conversations,
    widget_conversations = a.widget_conversations + excluded.widget_conversations,
    widget_conversations_launcher = a.widget_conversations_launcher + excluded.widget_conversations_launcher,
    widget_conversations_greeting = a.widget_conversations_greeting + excluded.widget_conversations_greeting,
    widget_conversations_nudge = a.widget_conversations_nudge + excluded.widget_conversations_nudge;
  return null;
end
$$;
create trigger analytics_conversations_inserted after insert on conversations
  referencing new table as new_conversations
  for each statement execute function analytics_conversations_inserted();
