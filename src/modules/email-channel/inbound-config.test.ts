import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../config.ts';

describe('PARLEY_MAIL_INBOUND_PORT and PARLEY_MAIL_INBOUND_HOST (operator contract)', () => {
  test('unset or 0: no SMTP server', () => {
    assert.equal(loadConfig({}).mailInboundPort, undefined);
    assert.equal(loadConfig({ PARLEY_MAIL_INBOUND_PORT: '0' }).mailInboundPort, undefined);
  });

  test('a port starts it, on HOST unless PARLEY_MAIL_INBOUND_HOST says otherwise', () => {
    assert.equal(loadConfig({ PARLEY_MAIL_INBOUND_PORT: '2525' }).mailInboundPort, 2525);
    assert.equal(loadConfig({ HOST: '0.0.0.0' }).mailInboundHost, '0.0.0.0');
    assert.equal(loadConfig({}).mailInboundHost, '127.0.0.1');
    assert.equal(loadConfig({ HOST: '0.0.0.0', PARLEY_MAIL_INBOUND_HOST: '10.0.0.5' }).mailInboundHost, '10.0.0.5');
  });

  test('anything else is refused at start', () => {
    assert.throws(() => loadConfig({ PARLEY_MAIL_INBOUND_PORT: 'smtp' }), /PARLEY_MAIL_INBOUND_PORT/);
  });
});
