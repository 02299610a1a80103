-- Passkeys (WebAuthn) of people, and the challenges of their ceremonies (docs/people.md, "Passkeys").
create table passkeys (
  id text primary key,
  person_id text not null references people (id) on delete cascade,
  -- The credential's id as the authenticator gives it (base64url).
  credential_id text not null unique,
  -- COSE public key.
  public_key bytea not null,
  sign_count bigint not null default 0,
  transports jsonb,
  name text not null,
  backed_up boolean not null default false,
  created_at timestamptz not null,
  last_used_at timestamptz
);
create index passkeys_person on passkeys (person_id);

-- A challenge is used once (used_at set in the same statement that checks it) and lapses
-- after a few minutes; being in the database, a ceremony may begin in one process and end in another.
create table passkey_challenges (
  challenge text primary key,
  purpose text not null check (purpose in ('register', 'sign_in')),
  -- For a registration: who asked (a sign-in challenge belongs to nobody until it is answered).
  person_id text references people (id) on delete cascade,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  used_at timestamptz
);
create index passkey_challenges_expiry on passkey_challenges (expires_at);
