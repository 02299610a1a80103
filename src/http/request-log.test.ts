import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import pino from 'pino';
import type { FastifyBaseLogger } from 'fastify';
import { lazyChildLogger } from './request-log.ts';

function capturingLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  const logger = pino({ level: 'info' }, stream);
  let children = 0;
  const child = logger.child.bind(logger);
  logger.child = ((...args: Parameters<typeof child>) => (children++, child(...args))) as typeof logger.child;
  return { logger: logger as unknown as FastifyBaseLogger, lines, children: () => children };
}

describe('request loggers (http/request-log.ts)', () => {
  test('a request logger makes its pino child only when a line is written, and binds the request id', async () => {
    const { logger, lines, children } = capturingLogger();
    const requestLog = lazyChildLogger(logger, { reqId: 'req_1' }, {});
    assert.equal(children(), 0);
    requestLog.debug('below the level');
    assert.equal(children(), 0, 'a line below the level makes no child');
    requestLog.error({ code: 'x' }, 'went wrong');
    requestLog.info('again');
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(children(), 1, 'one child, made on first use');
    assert.deepEqual(
      lines.map((line) => [line.reqId, line.msg, line.level]),
      [
        ['req_1', 'went wrong', 50],
        ['req_1', 'again', 30],
      ],
    );
    assert.equal(lines[0]!.code, 'x');
  });

  test("a route's own log level is honoured", async () => {
    const { logger, lines } = capturingLogger();
    const requestLog = lazyChildLogger(logger, { reqId: 'req_2' }, { level: 'debug' });
    requestLog.debug('shown at the route level');
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(
      lines.map((line) => line.msg),
      ['shown at the route level'],
    );
  });
});
