-- Settings owners have against abuse of an agent (docs/security.md, "Settings owners have").
--
-- The credits each agent spent per UTC day, kept only for agents whose owner set a daily cap
-- (limits.dailyCredits): the charge of an answer adds to the day's row only while the sum stays
-- within the cap (src/modules/chat/credits.ts), so API processes sharing one PostgreSQL never
-- let an agent pass it.
create table agent_credit_days (
  agent_id text not null references agents(id) on delete cascade,
  day date not null,
  used integer not null,
  primary key (agent_id, day)
);

-- Proof-of-work solutions already used (src/modules/visitors/proof-of-work.ts): a challenge's
-- nonce, kept until the challenge expires, so that every process refuses a solution used once.
create table used_proofs (
  nonce text primary key,
  expires_at timestamptz not null
);
create index used_proofs_expiry on used_proofs (expires_at);

-- The key that signs challenges, one for the service, made on first use.
create table proof_of_work_keys (
  id text primary key,
  secret text not null,
  created_at timestamptz not null
);
