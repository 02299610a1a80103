-- The two database steps of every answer as functions, so each is one round trip and the
-- plans of their statements are kept by the session (PL/pgSQL caches them) instead of being
-- made again for every question: the lexical search (src/modules/knowledge/search.ts) and
-- the credits charge (src/modules/chat/credits.ts). docs/knowledge.md and docs/chat.md.

-- BM25 (k1 1.2, b 0.75) top `p_limit` passages of an agent for a query, exact, by MaxScore
-- pruning over the query's terms sorted by their bound (the most one term can add to any
-- passage's score), highest first. Terms 1..e are essential: their postings are read and give
-- every passage holding one of them a partial score; the others are looked up (index probes)
-- only for passages whose partial score plus the others' bounds reaches the k-th best partial
-- score. A first, cheap pass over the most selective terms gives the threshold that picks e.
-- Scores are divided by the sum of the query terms' idf (0..1, a passage holding every term
-- once at average length scores about 1) and cut at p_min_score.
create function bm25_top_passages(p_agent text, p_config regconfig, p_query text, p_limit integer, p_min_score float8)
returns table (id text, source_id text, source_name text, url text, title text, text text, score float8)
-- Every statement's plan depends only on the shapes of its arrays, not their values: planned once a session.
language plpgsql stable set plan_cache_mode = force_generic_plan as $$
#variable_conflict use_column
declare
  k1 constant float8 := 1.2;
  b constant float8 := 0.75;
  -- slack on the bounds, so that rounding never prunes a passage that belongs in the top
  slack constant float8 := 1 + 1e-9;
  n float8;
  avgdl float8;
  idf_sum float8;
  term_ids bigint[];
  idfs float8[];
  bounds float8[];
  dfs float8[];
  term_count integer;
  rest float8[];
  floor_score float8;
  probe integer := 1;
  held float8;
  threshold float8;
  essential integer;
  top_seqs bigint[];
  top_scores float8[];
begin
  select a.passage_count, greatest(a.total_length::float8 / nullif(a.passage_count, 0), 1)
    into n, avgdl from agent_stats a where a.agent_id = p_agent;
  if not found or n <= 0 then return; end if;

  with q as (
    select distinct lexeme as term from unnest(to_tsvector(p_config, p_query))
  ), t as (
    select s.term_id, coalesce(s.df, 0)::float8 as df,
      ln(1 + (n - coalesce(s.df, 0) + 0.5) / (coalesce(s.df, 0) + 0.5)) as idf, s.max_tf, s.min_length
    from q left join agent_term_stats s on s.agent_id = p_agent and s.term = q.term
  ), w as (
    select term_id, df, idf, idf * (max_tf * (k1 + 1) / (max_tf + k1 * (1 - b + b * min_length / avgdl))) as bound from t
  )
  select sum(idf),
    array_agg(term_id order by bound desc, term_id) filter (where term_id is not null),
    array_agg(idf order by bound desc, term_id) filter (where term_id is not null),
    array_agg(bound order by bound desc, term_id) filter (where term_id is not null),
    array_agg(df order by bound desc, term_id) filter (where term_id is not null)
  into idf_sum, term_ids, idfs, bounds, dfs from w;
  term_count := coalesce(array_length(term_ids, 1), 0);
  if term_count = 0 or idf_sum <= 0 then return; end if;

  -- rest[e + 1]: the most the terms after the first e can add to a passage's score.
  rest := array_fill(0::float8, array[term_count + 1]);
  for i in reverse term_count..1 loop rest[i] := rest[i + 1] + bounds[i]; end loop;
  floor_score := p_min_score * idf_sum * (1 - 1e-9);

  -- Enough selective terms that, overlaps aside, p_limit passages hold one of them.
  held := dfs[1];
  while probe < term_count and held < p_limit loop
    probe := probe + 1;
    held := held + dfs[probe];
  end loop;
  threshold := floor_score;
  if probe < term_count then
    select greatest(threshold, coalesce((
      select sum(w.idf * p.tf * (k1 + 1) / (p.tf + k1 * (1 - b + b * p.length / avgdl))) as partial
      from passage_postings p join unnest(term_ids[1:probe], idfs[1:probe]) as w(term_id, idf) on p.term_id = w.term_id
      group by p.passage_seq order by partial desc offset p_limit - 1 limit 1), 0))
    into threshold;
  end if;
  essential := probe;
  while essential < term_count and rest[essential + 1] * slack >= threshold loop essential := essential + 1; end loop;

  for pass in 1..2 loop
    with partial as materialized (
      select p.passage_seq, sum(w.idf * p.tf * (k1 + 1) / (p.tf + k1 * (1 - b + b * p.length / avgdl))) as score
      from passage_postings p join unnest(term_ids[1:essential], idfs[1:essential]) as w(term_id, idf) on p.term_id = w.term_id
      group by p.passage_seq
    ), kth as (
      select greatest(coalesce((select score from partial order by score desc offset p_limit - 1 limit 1), 0), floor_score) as score
    ), candidates as (
      select c.passage_seq, c.score + coalesce((
        select sum(w.idf * p.tf * (k1 + 1) / (p.tf + k1 * (1 - b + b * p.length / avgdl)))
        from passage_postings p join unnest(term_ids[essential + 1:term_count], idfs[essential + 1:term_count]) as w(term_id, idf) on p.term_id = w.term_id
        where p.passage_seq = c.passage_seq), 0) as score
      from partial c, kth
      where c.score + rest[essential + 1] * slack >= kth.score
    ), top as (
      select passage_seq, score from candidates order by score desc, passage_seq limit p_limit
    )
    select array_agg(passage_seq order by score desc, passage_seq), array_agg(score order by score desc, passage_seq)
    into top_seqs, top_scores from top;
    -- Fewer than p_limit passages above the floor hold the essential terms: read every term's postings.
    exit when essential >= term_count
      or greatest(coalesce(top_scores[p_limit], 0), floor_score) > rest[essential + 1] * slack;
    essential := term_count;
  end loop;

  return query
    select p.id, p.source_id, s.name, case when s.type = 'website' then p.url end, p.title, p.text, least(1, t.score / idf_sum)
    from unnest(top_seqs, top_scores) as t(passage_seq, score)
    join passages p on p.seq = t.passage_seq join sources s on s.id = p.source_id
    where t.score >= floor_score and least(1, t.score / idf_sum) >= p_min_score
    order by t.score desc, t.passage_seq;
end
$$;

-- Takes p_credits from a workspace for the month p_month: the month's included credits
-- (p_included) first, then purchased packs. The workspace row is locked first, so charges
-- from any number of API processes are taken one after the other. Returns the credits taken
-- from packs, or null when included and purchased credits together do not cover p_credits.
create function charge_credits(p_workspace text, p_month text, p_credits integer, p_included integer)
returns integer language plpgsql as $$
declare
  packs integer;
  used_total integer;
  used_from_packs integer;
  from_packs integer;
begin
  select purchased_credits into packs from workspaces where id = p_workspace for update;
  if not found then raise exception 'no workspace %', p_workspace; end if;
  select u.used, u.from_packs into used_total, used_from_packs from credit_usage u where u.workspace_id = p_workspace and u.month = p_month;
  from_packs := p_credits - least(p_credits, greatest(0, p_included - (coalesce(used_total, 0) - coalesce(used_from_packs, 0))));
  if from_packs > packs then return null; end if;
  insert into credit_usage as u (workspace_id, month, used, from_packs) values (p_workspace, p_month, p_credits, from_packs)
  on conflict (workspace_id, month) do update set used = u.used + excluded.used, from_packs = u.from_packs + excluded.from_packs;
  if from_packs > 0 then
    update workspaces set purchased_credits = purchased_credits - from_packs where id = p_workspace;
  end if;
  return from_packs;
end
$$;
