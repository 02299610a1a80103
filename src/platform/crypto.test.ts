import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { equalInConstantTime, fingerprint, newApiKey, openSecret, parseSecretKey, sealSecret, secretKeyOf, SECRET_KEY_FILE } from './crypto.ts';

describe('equalInConstantTime (platform/crypto.ts)', () => {
  test('equal strings match; a change in any one place, or in length, does not', () => {
    const key = newApiKey();
    assert.equal(equalInConstantTime(key, `${key}`), true);
    for (const at of [0, 3, key.length - 1]) {
      const changed = key.slice(0, at) + (key[at] === 'a' ? 'b' : 'a') + key.slice(at + 1);
      assert.equal(equalInConstantTime(key, changed), false, `changed at ${at}`);
    }
    assert.equal(equalInConstantTime(key, key.slice(0, -1)), false);
    assert.equal(equalInConstantTime(fingerprint(key), fingerprint(key)), true);
    assert.equal(equalInConstantTime('', ''), true);
  });
});

describe('sealSecret and openSecret (platform/crypto.ts)', () => {
  test('a sealed secret opens with its key only, and a changed one does not open', async () => {
    const key = parseSecretKey('11'.repeat(32));
    const sealed = sealSecret(key, 'app password');
    assert.notEqual(sealSecret(key, 'app password'), sealed, 'a fresh IV each time');
    assert.equal(openSecret(key, sealed), 'app password');
    assert.throws(() => openSecret(parseSecretKey('22'.repeat(32)), sealed));
    const [v, iv, tag, data] = sealed.split('.');
    const flipped = Buffer.from(data!, 'base64url');
    flipped[0] = flipped[0]! ^ 1;
    assert.throws(() => openSecret(key, [v, iv, tag, flipped.toString('base64url')].join('.')));
    assert.throws(() => parseSecretKey('too short'), /32 bytes/);
  });

  test('without PARLEY_SECRET_KEY the key is made once in the data directory and read back after', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'parley-key-'));
    try {
      const [a, b] = await Promise.all([secretKeyOf({ secretKey: undefined, dataDir: dir }), secretKeyOf({ secretKey: undefined, dataDir: dir })]);
      assert.equal(a.length, 32);
      assert.deepEqual(a, b);
      assert.equal((await stat(path.join(dir, SECRET_KEY_FILE))).mode & 0o777, 0o600);
      assert.deepEqual(await secretKeyOf({ secretKey: 'ab'.repeat(32), dataDir: dir }), Buffer.from('ab'.repeat(32), 'hex'), 'the configured key wins');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
