import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connectRedis } from './limiter.ts';
import { memoryVersions, redisVersions, uncachedVersions, versionNames, type Versions } from './versions.ts';

function provesBumpsAreSeen(name: string, open: () => Promise<{ writer: Versions; reader: Versions; close(): Promise<void> }>, options: { skip?: string | false } = {}) {
  test(`${name}: a bump is seen by the next read, and only for the counter bumped`, options, async () => {
    const { writer, reader, close } = await open();
    try {
      const workspace = versionNames.workspace(`ws_${Math.random().toString(36).slice(2)}`);
      const [authBefore, workspaceBefore] = await reader.read([versionNames.auth, workspace]);
      await writer.bump(workspace);
      const [authAfter, workspaceAfter] = await reader.read([versionNames.auth, workspace]);
      assert.notEqual(workspaceAfter, workspaceBefore);
      // The auth counter is shared by every test on this Redis; it may only move forward.
      assert.ok(Number(authAfter) >= Number(authBefore));
    } finally {
      await close();
    }
  });
}

describe('versions (platform/versions.ts)', () => {
  provesBumpsAreSeen('in memory', async () => {
    const versions = memoryVersions();
    return { writer: versions, reader: versions, close: async () => {} };
  });

  const redisUrl = process.env.TEST_REDIS_URL;
  provesBumpsAreSeen(
    'in Redis, across two connections as two processes would hold them',
    async () => {
      const [first, second] = [connectRedis(redisUrl!), connectRedis(redisUrl!)];
      return {
        writer: redisVersions(first),
        reader: redisVersions(second),
        close: async () => void (await Promise.all([first.quit(), second.quit()])),
      };
    },
    { skip: !redisUrl && 'needs TEST_REDIS_URL' },
  );

  test('without anything shared, two reads never agree, so nothing is cached', async () => {
    const versions = uncachedVersions();
    assert.notDeepEqual(await versions.read(['auth']), await versions.read(['auth']));
  });
});
