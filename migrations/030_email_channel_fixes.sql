-- Mail an agent wrote carries Auto-Submitted: auto-replied (docs/email.md, "Loops").
alter table mails add column auto_reply boolean not null default false;
