-- The inbox's conversation filters and search (issue 24, docs/chat.md "Filters and search").
--
-- Search: one document per conversation, the words of all its messages (questions and
-- answers), folded (lower case, accents off) and kept as a stripped tsvector (no positions:
-- a search is words in any order, never a phrase) under a GIN index. PostgreSQL's own full
-- text search: no extension, so it is the same on a PostgreSQL server and on PGlite.
-- The 'simple' configuration: no stemming and no stop words, every language alike.

-- Lower case, accents off (NFD, combining marks dropped), and the Latin letters NFD leaves
-- whole spelled as plain letters. Greek and Cyrillic capitals are lowered by translate, so
-- the result does not depend on the database's locale (a C locale lowers ASCII only).
create function conversation_search_fold(content text) returns text language sql immutable parallel safe as $$
  select translate(
    replace(replace(replace(replace(replace(replace(
      regexp_replace(normalize(lower(content), NFD), '[\u0300-\u036f]', '', 'g'),
      'ß', 'ss'), 'æ', 'ae'), 'œ', 'oe'), 'Æ', 'ae'), 'Œ', 'oe'), 'ẞ', 'ss'),
    'øØłŁđĐħĦıАБВГДЕЖЗИКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩς',
    'oollddhhiабвгдежзиклмнопрстуфхцчшщъыьэюяαβγδεζηθικλμνξοπρστυφχψωσ')
$$;

create function conversation_search_vector(content text) returns tsvector language sql immutable parallel safe as $$
  select strip(to_tsvector('simple'::regconfig, conversation_search_fold(content)))
$$;

create table conversation_search (
  conversation_id text primary key references conversations(id) on delete cascade,
  agent_id text not null,
  document tsvector not null
);
create index conversation_search_document on conversation_search using gin (document);

-- A new message adds its words; an edited one (a held e-mail draft sent after editing) makes
-- the document again from every message of the conversation.
create function conversation_search_messages_insert() returns trigger language plpgsql as $$
begin
  insert into conversation_search (conversation_id, agent_id, document)
    values (new.conversation_id, new.agent_id, conversation_search_vector(new.content))
    on conflict (conversation_id) do update set document = conversation_search.document || excluded.document;
  return null;
end;
$$;
create trigger conversation_search_messages_insert after insert on messages
  for each row execute function conversation_search_messages_insert();

create function conversation_search_messages_update() returns trigger language plpgsql as $$
begin
  update conversation_search
    set document = coalesce((select conversation_search_vector(string_agg(m.content, ' ' order by m.position))
                             from messages m where m.conversation_id = new.conversation_id), ''::tsvector)
    where conversation_id = new.conversation_id;
  return null;
end;
$$;
create trigger conversation_search_messages_update after update of content on messages
  for each row when (old.content is distinct from new.content) execute function conversation_search_messages_update();

-- The conversations there already.
insert into conversation_search (conversation_id, agent_id, document)
  select m.conversation_id, min(m.agent_id), conversation_search_vector(string_agg(m.content, ' ' order by m.position))
  from messages m group by m.conversation_id;

-- An export link keeps the list's filters it was asked with (GET .../conversations/export).
alter table conversation_exports add column confidence text;
alter table conversation_exports add column feedback text;
alter table conversation_exports add column q text;
