import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { equalInConstantTime, fingerprint, newApiKey } from './crypto.ts';

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
