import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connectRedis } from './redis.ts';
import { memoryVersions, redisVersions, uncachedVersions, VersionedCache, versionNames, type Versions } from './versions.ts';

function provesBumpsAreSeen(name: string, open: () => Promise<{ writer: Versions; reader: Versions; close(): Promise<void> }>, options: { skip?: string | false } = {}) {
  test(`${name}: a bump is seen by the next read, and only for the version bumped`, options, async () => {
    const { writer, reader, close } = await open();
    try {
      const [bumped, other] = [versionNames.workspace(uniqueId()), versionNames.workspace(uniqueId())];
      const before = await reader.read([bumped, other]);
      assert.deepEqual(await reader.read([bumped, other]), before, 'reads without a bump agree');
      await writer.bump(bumped);
      const after = await reader.read([bumped, other]);
      assert.notEqual(after[0], before[0]);
      assert.equal(after[1], before[1]);
    } finally {
      await close();
    }
  });
}

function uniqueId(): string {
  return `ws_${Math.random().toString(36).slice(2)}`;
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
        close: async () => void (await Promise.all([first.close(), second.close()])),
      };
    },
    { skip: !redisUrl && 'needs TEST_REDIS_URL' },
  );

  test('a Redis that lost its data never hands back a version a cache saw before', { skip: !redisUrl && 'needs TEST_REDIS_URL' }, async () => {
    const redis = connectRedis(redisUrl!);
    try {
      const versions = redisVersions(redis);
      const name = versionNames.workspace(uniqueId());
      const seen = new Set(await versions.read([name]));
      for (let i = 0; i < 3; i++) {
        await versions.bump(name);
        seen.add((await versions.read([name]))[0]!);
      }
      await redis.client.del(`parley:version:${name}`); // as after a restart without persistence
      const [afterLoss] = await versions.read([name]);
      assert.ok(!seen.has(afterLoss!), 'a fresh value, not one seen before');
      assert.deepEqual(await versions.read([name]), [afterLoss], 'and it stays until the next bump');
    } finally {
      await redis.close();
    }
  });

  test('in Redis, reads of one turn asking for overlapping names, one of them new, each get their own values', { skip: !redisUrl && 'needs TEST_REDIS_URL' }, async () => {
    const redis = connectRedis(redisUrl!);
    try {
      const versions = redisVersions(redis);
      const [known, other, fresh] = [versionNames.workspace(uniqueId()), versionNames.workspace(uniqueId()), versionNames.workspace(uniqueId())];
      const [knownValue, otherValue] = await versions.read([known, other]);
      const [first, second, third] = await Promise.all([versions.read([known, fresh]), versions.read([fresh, other]), versions.read([other])]);
      assert.equal(first[0], knownValue);
      assert.equal(first[1], second[0], 'a name created in the turn has one value for every reader');
      assert.ok(first[1] && first[1] !== knownValue && first[1] !== otherValue);
      assert.deepEqual([second[1], third[0]], [otherValue, otherValue]);
    } finally {
      await redis.close();
    }
  });

  test('in Redis, the bumps of one turn are one command: each name bumped gets a new value, a name bumped twice one', { skip: !redisUrl && 'needs TEST_REDIS_URL' }, async () => {
    const [redis, other] = [connectRedis(redisUrl!), connectRedis(redisUrl!)];
    try {
      const [writer, reader] = [redisVersions(redis), redisVersions(other)];
      const [first, second, untouched] = [versionNames.workspace(uniqueId()), versionNames.workspace(uniqueId()), versionNames.workspace(uniqueId())];
      const before = await reader.read([first, second, untouched]);
      await redis.client.ping();
      const sent: string[] = [];
      const original = redis.client.sendCommand.bind(redis.client);
      redis.client.sendCommand = ((command: { name: string }) => {
        sent.push(command.name);
        return original(command as never);
      }) as typeof redis.client.sendCommand;
      await Promise.all([writer.bump(first), writer.bump(second), writer.bump(first)]);
      assert.deepEqual(sent, ['mset'], 'one command for the turn');
      const after = await reader.read([first, second, untouched]);
      assert.notEqual(after[0], before[0]);
      assert.notEqual(after[1], before[1]);
      assert.notEqual(after[0], after[1], 'each name its own new value');
      assert.equal(after[2], before[2], 'a name not bumped keeps its value');
    } finally {
      await Promise.all([redis.close(), other.close()]);
    }
  });

  test('without anything shared, two reads never agree, so nothing is cached', async () => {
    const versions = uncachedVersions();
    assert.notDeepEqual(await versions.read(['auth']), await versions.read(['auth']));
  });

  test('a cached copy is current only under the stamp it was stored with', () => {
    const cache = new VersionedCache<string>();
    cache.set('key', 'v1', 'row');
    assert.equal(cache.current('key', 'v1'), 'row');
    assert.equal(cache.current('key', 'v2'), undefined);
    assert.equal(cache.peek('key'), 'row', 'peek tells what was stored, current or not');
    cache.delete('key');
    assert.equal(cache.peek('key'), undefined);
  });
});
