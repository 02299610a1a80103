-- A question's alternatives at a share of their idf (src/modules/knowledge/postings.ts,
-- ParsedQuestion.shares): an English verb is also searched as the verbs of one doer with it, at
-- half its weight ("started" as "founded": docs/chat.md, "The eighth step, English (qen)"), where
-- a synonym or a translation counts whole. p_shares gives each of p_terms its share (1 for the
-- question's own lexemes); a term adds its idf at that share, and a word weighs the most one
-- of its held terms adds, as postings.ts's questionWeight, so both paths rank alike.
drop function bm25_top_passages(text, text[], integer[], integer, float8);

create function bm25_top_passages(p_agent text, p_terms text[], p_words integer[], p_shares float8[], p_limit integer, p_min_score float8)
returns table (id text, source_id text, source_name text, url text, title text, text text, score float8)
-- Every statement's plan depends only on the shapes of its arrays, not their values: planned once a session.
language plpgsql stable set plan_cache_mode = force_generic_plan as $$
#variable_conflict use_column
declare
  k1 constant float8 := 1.2;
  b constant float8 := 0.75;
  -- slack on the bounds, so that rounding never prunes a passage that belongs in the top
  slack constant float8 := 1 + 1e-9;
  -- as ABSENT_SHARE in src/modules/knowledge/postings.ts
  absent_share constant float8 := 0.5;
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
    -- A term's share is the same wherever it appears (the service passes its largest).
    select distinct term, word, share from unnest(p_terms, p_words, p_shares) as q(term, word, share)
  ), t as (
    select q.word, s.term_id, s.df::float8 as df, ln(1 + (n - s.df + 0.5) / (s.df + 0.5)) * q.share as idf, s.max_tf, s.min_length
    from q left join agent_term_stats s on s.agent_id = p_agent and s.term = q.term
  ), words as (
    -- A word's weight: the most one of its terms the index holds adds, else a share of the rarest a held term can be.
    select coalesce(max(idf), absent_share * ln(1 + (n - 1 + 0.5) / (1 + 0.5))) as weight from t group by word
  ), w as (
    select distinct on (term_id) term_id, df, idf, idf * (max_tf * (k1 + 1) / (max_tf + k1 * (1 - b + b * min_length / avgdl))) as bound
    from t where term_id is not null order by term_id
  )
  select (select sum(weight) from words),
    array_agg(term_id order by bound desc, term_id),
    array_agg(idf order by bound desc, term_id),
    array_agg(bound order by bound desc, term_id),
    array_agg(df order by bound desc, term_id)
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
