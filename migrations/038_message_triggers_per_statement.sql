-- The analytics and search-text work of new messages once per statement instead of once per row
-- (issue 27, capacity; docs/performance.md "Capacity"). An answer records its question and its answer
-- in one statement: the agent's day was added to twice, the conversation's channel read twice and
-- its search document made and merged twice. Now each (agent, day) gets one sum, each question group
-- and start page one upsert, each conversation's document one merge of its new messages' words.
-- The figures are the same as the row triggers of migrations 015 and 036 gave.

drop trigger analytics_messages_insert on messages;
drop function analytics_messages_insert();

create function analytics_messages_inserted() returns trigger language plpgsql as $$
declare
  g record;
  d analytics_days;
begin
  -- Test conversations (playground) and messages whose conversation is gone count nowhere.
  for g in
    select m.agent_id, analytics_utc_day(m.created_at) as day,
      count(*) filter (where m.role = 'user') as questions,
      count(*) filter (where m.role <> 'user') as answers,
      count(*) filter (where m.role <> 'user' and m.feedback = 1) as helpful,
      count(*) filter (where m.role <> 'user' and m.feedback = -1) as not_helpful,
      count(*) filter (where m.role <> 'user' and analytics_is_weak(m.confidence, m.sources)) as weak,
      coalesce(sum(m.confidence) filter (where m.role <> 'user'), 0) as confidence_sum,
      count(m.confidence) filter (where m.role <> 'user') as confidence_count,
      count(*) filter (where m.role <> 'user' and m.confidence >= 80) as band_high,
      count(*) filter (where m.role <> 'user' and m.confidence >= 50 and m.confidence < 80) as band_medium,
      count(*) filter (where m.role <> 'user' and m.confidence < 50) as band_low
    from new_messages m join conversations c on c.id = m.conversation_id
    where c.channel <> 'playground'
    group by m.agent_id, analytics_utc_day(m.created_at)
  loop
    d := null;
    d.agent_id := g.agent_id;
    d.day := g.day;
    d.questions := g.questions;
    d.answers := g.answers;
    d.helpful := g.helpful;
    d.not_helpful := g.not_helpful;
    d.weak := g.weak;
    d.confidence_sum := g.confidence_sum;
    d.confidence_count := g.confidence_count;
    d.band_high := g.band_high;
    d.band_medium := g.band_medium;
    d.band_low := g.band_low;
    perform analytics_add(d);
  end loop;

  -- A group keeps the words of its first question (as the row trigger's insert did).
  insert into analytics_questions (agent_id, day, key, text, count)
    select m.agent_id, analytics_utc_day(m.created_at), analytics_question_key(m.content),
      (array_agg(m.content order by m.created_at, m.position))[1], count(*)
    from new_messages m join conversations c on c.id = m.conversation_id
    where c.channel <> 'playground' and m.role = 'user'
    group by m.agent_id, analytics_utc_day(m.created_at), analytics_question_key(m.content)
  on conflict (agent_id, day, key) do update set count = analytics_questions.count + excluded.count;

  insert into analytics_start_pages (agent_id, day, url, count)
    select m.agent_id, analytics_utc_day(m.created_at), m.page_url, count(*)
    from new_messages m join conversations c on c.id = m.conversation_id
    where c.channel in ('widget', 'iframe') and m.role = 'user' and m.position = 0 and m.page_url is not null
    group by m.agent_id, analytics_utc_day(m.created_at), m.page_url
  on conflict (agent_id, day, url) do update set count = analytics_start_pages.count + excluded.count;
  return null;
end
$$;
create trigger analytics_messages_inserted after insert on messages
  referencing new table as new_messages
  for each statement execute function analytics_messages_inserted();

drop trigger conversation_search_messages_insert on messages;
drop function conversation_search_messages_insert();

-- A conversation's new messages add their words in one merge (their texts joined in order, as
-- migration 036 made the documents of the conversations already there).
create function conversation_search_messages_inserted() returns trigger language plpgsql as $$
begin
  insert into conversation_search (conversation_id, agent_id, document)
    select m.conversation_id, min(m.agent_id), conversation_search_vector(string_agg(m.content, ' ' order by m.position))
    from new_messages m
    group by m.conversation_id
  on conflict (conversation_id) do update set document = conversation_search.document || excluded.document;
  return null;
end;
$$;
create trigger conversation_search_messages_inserted after insert on messages
  referencing new table as new_messages
  for each statement execute function conversation_search_messages_inserted();
