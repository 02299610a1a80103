-- The charges of one group taken with one lock, one read and one write per workspace and month (issue 27, capacity;
-- docs/performance.md "Capacity", thirteenth round), where migration 053 ran charge_credits for each charge: four
-- statements a charge, and as many new versions of the month's usage row. The charges are still judged one by one in
-- the order given, each seeing the ones before it, so exactly the charge that would cross the limit is refused (null
-- at its place) as when they were sent one by one. The caller sorts them by workspace (the order the workspaces are
-- locked in); charges of one workspace in two months are judged against each month's usage.
create or replace function charge_credits_each(p_workspaces text[], p_months text[], p_credits integer[], p_included integer[])
returns integer[] language plpgsql as $$
declare
  charged integer[] := '{}';
  the_workspace text;
  the_month text;
  packs integer;                  -- the workspace's purchased credits left, this call's charges taken off
  packs_taken integer := 0;       -- taken from the workspace's packs by this call and not yet written
  used_total integer;             -- the month's usage, this call's charges added
  used_from_packs integer;
  month_charged boolean := false; -- the month's usage has charges of this call not yet written
  month_used integer := 0;
  month_from_packs integer := 0;
  from_packs integer;
begin
  for i in 1 .. coalesce(array_length(p_workspaces, 1), 0) loop
    if month_charged and (the_workspace is distinct from p_workspaces[i] or the_month is distinct from p_months[i]) then
      insert into credit_usage as u (workspace_id, month, used, from_packs) values (the_workspace, the_month, month_used, month_from_packs)
      on conflict (workspace_id, month) do update set used = u.used + excluded.used, from_packs = u.from_packs + excluded.from_packs;
      month_charged := false;
      month_used := 0;
      month_from_packs := 0;
    end if;
    if the_workspace is distinct from p_workspaces[i] then
      if packs_taken > 0 then
        update workspaces set purchased_credits = purchased_credits - packs_taken where id = the_workspace;
      end if;
      packs_taken := 0;
      the_workspace := p_workspaces[i];
      the_month := null;
      select purchased_credits into packs from workspaces where id = the_workspace for no key update;
      if not found then raise exception 'no workspace %', the_workspace; end if;
    end if;
    if the_month is distinct from p_months[i] then
      the_month := p_months[i];
      select u.used, u.from_packs into used_total, used_from_packs from credit_usage u where u.workspace_id = the_workspace and u.month = the_month;
      used_total := coalesce(used_total, 0);
      used_from_packs := coalesce(used_from_packs, 0);
    end if;
    from_packs := p_credits[i] - least(p_credits[i], greatest(0, p_included[i] - (used_total - used_from_packs)));
    if from_packs > packs then
      charged := charged || null::integer;
      continue;
    end if;
    used_total := used_total + p_credits[i];
    used_from_packs := used_from_packs + from_packs;
    month_charged := true;
    month_used := month_used + p_credits[i];
    month_from_packs := month_from_packs + from_packs;
    packs := packs - from_packs;
    packs_taken := packs_taken + from_packs;
    charged := charged || from_packs;
  end loop;
  if month_charged then
    insert into credit_usage as u (workspace_id, month, used, from_packs) values (the_workspace, the_month, month_used, month_from_packs)
    on conflict (workspace_id, month) do update set used = u.used + excluded.used, from_packs = u.from_packs + excluded.from_packs;
  end if;
  if packs_taken > 0 then
    update workspaces set purchased_credits = purchased_credits - packs_taken where id = the_workspace;
  end if;
  return charged;
end
$$;
