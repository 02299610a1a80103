import assert from 'node:assert/strict';
import dns from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import { createSafeFetch, SafeFetchError, type SafeFetchFailure } from './safe-fetch.ts';

const servers: http.Server[] = [];

after(() => {
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
});

async function serve(handler: http.RequestListener): Promise<{ origin: string; port: number; hits: () => number }> {
  let hits = 0;
  const server = http.createServer((req, res) => {
    hits++;
    handler(req, res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, port, hits: () => hits };
}

function failsWith(kind: SafeFetchFailure) {
  return (error: unknown) => {
    assert.ok(error instanceof SafeFetchError, `expected SafeFetchError, got ${String(error)}`);
    assert.equal(error.kind, kind, error.message);
    return true;
  };
}

/** Streams `total` bytes in 16 KB chunks, one every 10 ms; reports whether the client hung up first. */
function slowBody(headers: http.OutgoingHttpHeaders, total: number) {
  let finished = false;
  let resolveClosed: (finishedFirst: boolean) => void;
  const closed = new Promise<boolean>((resolve) => (resolveClosed = resolve));
  const handler: http.RequestListener = (_req, res) => {
    res.writeHead(200, headers);
    let sent = 0;
    const timer = setInterval(() => {
      res.write(Buffer.alloc(16 * 1024, 'x'));
      sent += 16 * 1024;
      if (sent >= total) {
        finished = true;
        clearInterval(timer);
        res.end();
      }
    }, 10);
    res.on('close', () => {
      clearInterval(timer);
      resolveClosed(finished);
    });
  };
  return { handler, closed };
}

const guarded = createSafeFetch({ allowPrivate: false });
const open = createSafeFetch({ allowPrivate: true });

test('loopback, private, link-local, mapped and unspecified addresses are refused when private URLs are not allowed', async () => {
  const local = await serve((_req, res) => res.end('secret'));
  const hosts = ['127.0.0.1', 'localhost', '[::1]', '10.0.0.1', '169.254.169.254', '[::ffff:127.0.0.1]', '0.0.0.0', '[::7f00:1]', '[::a00:1]'];
  for (const host of hosts) {
    const url = `http://${host}:${local.port}/`;
    await assert.rejects(guarded.check(url), failsWith('unsafe_url'), url);
    await assert.rejects(guarded.fetch(url), failsWith('unsafe_url'), url);
  }
  assert.equal(local.hits(), 0);
});

test('link-local (cloud metadata) stays refused even when private URLs are allowed', async () => {
  await assert.rejects(open.check('http://169.254.169.254/latest/meta-data/'), failsWith('unsafe_url'));
  await assert.rejects(open.check('http://[fe80::1]/'), failsWith('unsafe_url'));
});

test('only http and https URLs are accepted', async () => {
  for (const url of ['file:///etc/passwd', 'ftp://example.com/', 'javascript:alert(1)', 'not a url']) {
    await assert.rejects(open.check(url), failsWith('invalid_url'), url);
    await assert.rejects(open.fetch(url), failsWith('invalid_url'), url);
  }
});

test('with private URLs allowed a local server is fetched, with the Parley user-agent', async () => {
  let userAgent: string | undefined;
  const local = await serve((req, res) => {
    userAgent = req.headers['user-agent'];
    res.setHeader('content-type', 'text/plain');
    res.end('hello');
  });
  await open.check(`${local.origin}/`);
  const response = await open.fetch(`${local.origin}/page`);
  assert.equal(response.status, 200);
  assert.equal(new TextDecoder().decode(response.body), 'hello');
  assert.equal(response.headers.get('content-type'), 'text/plain');
  assert.equal(response.url, `${local.origin}/page`);
  assert.equal(userAgent, 'Parley/1.0 (+https://github.com/parley)');

  await open.fetch(`${local.origin}/`, { headers: { 'User-Agent': 'custom' } });
  assert.equal(userAgent, 'custom');
});

test('a redirect chain is followed and the final url reported', async () => {
  const local = await serve((req, res) => {
    const hops: Record<string, string> = { '/a': '/b', '/b': '/c' };
    const next = hops[req.url ?? ''];
    if (next) res.writeHead(302, { location: next }).end();
    else res.end(`at ${req.url}`);
  });
  const response = await open.fetch(`${local.origin}/a`);
  assert.equal(response.status, 200);
  assert.equal(response.url, `${local.origin}/c`);
  assert.equal(new TextDecoder().decode(response.body), 'at /c');
});

test('every redirect hop is checked again: a hop to a refused address or scheme fails', async () => {
  const local = await serve((req, res) => {
    const target = req.url === '/metadata' ? 'http://169.254.169.254/latest/meta-data/' : 'file:///etc/passwd';
    res.writeHead(302, { location: target }).end();
  });
  await assert.rejects(open.fetch(`${local.origin}/metadata`), failsWith('unsafe_url'));
  await assert.rejects(open.fetch(`${local.origin}/file`), failsWith('invalid_url'));
});

test('the connect-time check refuses a name that resolves to loopback by then (DNS rebinding)', async (t) => {
  const local = await serve((_req, res) => res.end('secret'));
  let lookups = 0;
  // First answer (the early check) is public, every later one (the connector) is loopback.
  t.mock.method(dns.promises, 'lookup', async () => [{ address: lookups++ === 0 ? '93.184.215.14' : '127.0.0.1', family: 4 }]);
  await assert.rejects(guarded.fetch(`http://rebind.test:${local.port}/`), failsWith('unsafe_url'));
  assert.ok(lookups >= 2, 'the connector resolved the name again');
  assert.equal(local.hits(), 0);
});

test('maxRedirects 0 returns the redirect response itself', async () => {
  const local = await serve((_req, res) => res.writeHead(302, { location: '/elsewhere' }).end());
  const response = await open.fetch(`${local.origin}/hook`, { method: 'POST', body: '{}', maxRedirects: 0 });
  assert.equal(response.status, 302);
  assert.equal(response.headers.get('location'), '/elsewhere');
  assert.equal(response.url, `${local.origin}/hook`);
  assert.equal(local.hits(), 1);
});

test('more redirects than maxRedirects fail with too_many_redirects', async () => {
  const local = await serve((req, res) => res.writeHead(302, { location: `${req.url}x` }).end());
  await assert.rejects(open.fetch(`${local.origin}/`, { maxRedirects: 2 }), failsWith('too_many_redirects'));
  assert.equal(local.hits(), 3);
});

test('credentials are not carried to another origin on redirect', async () => {
  let seen: string | undefined = 'not called';
  const other = await serve((req, res) => {
    seen = req.headers.authorization;
    res.end();
  });
  const first = await serve((_req, res) => res.writeHead(307, { location: `${other.origin}/` }).end());
  await open.fetch(`${first.origin}/`, { headers: { Authorization: 'Bearer secret' } });
  assert.equal(seen, undefined);
});

test('a content-length above maxBytes fails before reading and closes the connection', async () => {
  const body = slowBody({ 'content-length': 10_000_000 }, 10_000_000);
  const local = await serve(body.handler);
  await assert.rejects(open.fetch(`${local.origin}/`, { maxBytes: 1000 }), failsWith('too_large'));
  assert.equal(await body.closed, false, 'connection closed before the server finished');
});

test('a streamed body without content-length fails once it passes maxBytes and closes the connection', async () => {
  const body = slowBody({}, 10_000_000);
  const local = await serve(body.handler);
  await assert.rejects(open.fetch(`${local.origin}/`, { maxBytes: 100_000 }), failsWith('too_large'));
  assert.equal(await body.closed, false, 'connection closed before the server finished');
});

test('a server that never answers fails with timeout after timeoutMs', async () => {
  const local = await serve(() => {});
  const started = Date.now();
  await assert.rejects(open.fetch(`${local.origin}/`, { timeoutMs: 300 }), failsWith('timeout'));
  assert.ok(Date.now() - started < 2000);
});

test('a refused connection fails with network', async () => {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  await assert.rejects(open.fetch(`http://127.0.0.1:${port}/`), failsWith('network'));
});
