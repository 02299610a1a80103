import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Context } from './context.ts';
import { createKey, createWorkspace, ensureAdminToken } from './modules/admin/service.ts';
import { operatorSignInLink } from './modules/people/service.ts';

const BOOTSTRAP_LOCK = 827_002;

export interface FirstStart {
  manageKey: string;
  adminToken: string | undefined;
  workspaceId: string;
  /** A one-time sign-in link to the dashboard for Demo's owner, valid 24 hours. */
  signInLink: string;
}

/**
 * On the very first start (no workspace, no operator token yet) makes the Demo
 * workspace on the studio plan, a manage key and the operator token. Returns
 * them once; every later start returns undefined.
 */
export async function bootstrap(ctx: Context): Promise<FirstStart | undefined> {
  return ctx.database.session(async (session) => {
    await session.executeSql('select pg_advisory_lock($1)', [BOOTSTRAP_LOCK]);
    try {
      const done = await ctx.db.selectFrom('settings').select('value').where('name', '=', 'bootstrapped').executeTakeFirst();
      if (done) return undefined;
      const adminToken = await ensureAdminToken(ctx);
      if (adminToken) await saveAdminToken(ctx.config.dataDir, adminToken);
      const workspace = await createWorkspace(ctx, { name: 'Demo', plan: 'studio', ownerEmail: ctx.config.ownerEmail });
      const key = await createKey(ctx, workspace.id, { name: 'Demo manage key', scope: 'manage' });
      await ctx.db.insertInto('settings').values({ name: 'bootstrapped', value: ctx.clock.now().toISOString() }).execute();
      const link = await operatorSignInLink(ctx, workspace.id);
      return { manageKey: key.key, adminToken, workspaceId: workspace.id, signInLink: link.url };
    } finally {
      await session.executeSql('select pg_advisory_unlock($1)', [BOOTSTRAP_LOCK]);
    }
  });
}

export const ADMIN_TOKEN_FILE = 'admin-token';

/** Kept in the data directory (readable by its owner only) so `npx parley admin` can find it. */
async function saveAdminToken(dataDir: string, token: string): Promise<void> {
  await mkdir(dataDir, { recursive: true });
  await writeFile(path.join(dataDir, ADMIN_TOKEN_FILE), `${token}\n`, { mode: 0o600 });
}
