-- The charge locks the workspace row without blocking the rows that refer to it (issue 27, capacity;
-- docs/performance.md "Capacity", sixth round). charge_credits (migration 019) took the row `for update`, the
-- lock that also keeps the row's key from changing, so every insert of a row that refers to the workspace (a new
-- conversation: its foreign key check takes `for key share`) waited for whichever charge of the workspace had not
-- committed yet. `for no key update` serialises the charges as before (it conflicts with itself and with the
-- update of purchased_credits), and leaves `for key share` alone: the workspace's key never changes in a charge.
create or replace function charge_credits(p_workspace text, p_month text, p_credits integer, p_included integer)
returns integer language plpgsql as $$
declare
  packs integer;
  used_total integer;
  used_from_packs integer;
  from_packs integer;
begin
  select purchased_credits into packs from workspaces where id = p_workspace for no key update;
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
