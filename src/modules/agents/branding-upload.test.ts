/**
 * Spec 1.5 and 2.5: a person uploads a logo or icon (PNG, JPEG, GIF, WebP or SVG) and
 * crops it; an SVG keeps nothing but its picture (no script, event attribute, foreign
 * object or outside reference survives, and none is fetched); a crop brings an image
 * above 512 KB into range (docs/people.md, "Branding images").
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { startService, type SeededWorkspace, type Service } from '../../../test/support/harness.ts';
import { assertError } from '../../../test/support/assertions.ts';
import { seedAgent } from '../../../test/support/seed-agent.ts';
import { addPerson, formOf, sendForm, signIn, type SignedIn } from '../people/test-support.ts';

const KB = 1024;

let service: Service;
let ws: SeededWorkspace;
let owner: SignedIn;
let agentId: string;
let outside: http.Server;
let outsideHits: string[] = [];
let outsideBase: string;
let redFile: string;
let counter = 0;

before(async () => {
  service = await startService({ env: { PARLEY_RATE_LIMIT_PER_MINUTE: '100000' } });
  ws = await service.seedWorkspace({ name: 'Branding' });
  owner = await signIn(service, ws.id, 'owner@example.com');
  agentId = await seedAgent(service, ws, 'Brand');
  // Where the hostile SVGs point: any request reaching it is a reference that was followed.
  outside = http.createServer((request, response) => {
    outsideHits.push(request.url ?? '');
    response.writeHead(200, { 'content-type': 'image/png' }).end(RED_PNG);
  });
  await new Promise<void>((resolve) => outside.listen(0, '127.0.0.1', resolve));
  outsideBase = `http://127.0.0.1:${(outside.address() as AddressInfo).port}`;
  redFile = join(await mkdtemp(join(tmpdir(), 'parley-red-')), 'red.png');
  await writeFile(redFile, RED_PNG);
});
after(async () => {
  await new Promise((resolve) => outside.close(resolve));
  await service.close();
});

const RED_PNG = await sharp({ create: { width: 10, height: 10, channels: 4, background: '#ff0000' } }).png().toBuffer();

const uploadImage = (person: SignedIn, image: 'logo' | 'icon', bytes: Uint8Array | string, fields: Record<string, string> = {}, agent = agentId) =>
  sendForm(service, person, `/api/agents/${agent}/branding/${image}`, formOf([['image', bytes]], fields));

/** The image the agent's logoUrl or iconUrl serves now. */
async function served(agent: { branding: { logoUrl: string | null; iconUrl: string | null } }, image: 'logo' | 'icon'): Promise<{ type: string; bytes: Buffer }> {
  const url = image === 'logo' ? agent.branding.logoUrl : agent.branding.iconUrl;
  assert.ok(url, `the agent has a ${image}`);
  const response = await fetch(`${service.url}${new URL(url).pathname}${new URL(url).search}`);
  assert.equal(response.status, 200);
  return { type: response.headers.get('content-type') ?? '', bytes: Buffer.from(await response.arrayBuffer()) };
}

/** Random pixels: they do not compress, so the PNG is about width × height × 3 bytes. */
async function noise(width: number, height: number): Promise<Buffer> {
  const pixels = randomBytes(width * height * 3);
  return sharp(pixels, { raw: { width, height, channels: 3 } }).png({ compressionLevel: 9 }).toBuffer();
}

async function pixelAt(bytes: Buffer, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const at = (y * info.width + x) * 4;
  return [...data.subarray(at, at + 4)];
}

describe('uploading a logo or icon (spec 1.5, 2.5)', () => {
  test('a PNG of at most 512 KB is kept as it is and served at the agent\'s logoUrl', async () => {
    const reply = await uploadImage(owner, 'logo', RED_PNG);
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    const image = await served(reply.body.data, 'logo');
    assert.equal(image.type, 'image/png');
    assert.deepEqual(image.bytes, RED_PNG);
    const agent = await service.api('GET', `/agents/${agentId}`, { key: ws.keys.read });
    assert.equal(agent.body.data.branding.logoUrl, reply.body.data.branding.logoUrl);
  });

  test('an image above 512 KB is 413 file_too_large without a crop; with one it is re-encoded into range', async () => {
    const big = await noise(700, 500);
    assert.ok(big.length > 512 * KB, `${big.length} bytes`);
    assertError(await uploadImage(owner, 'icon', big), 413, 'file_too_large');
    const reply = await uploadImage(owner, 'icon', big, { x: '100', y: '50', width: '600', height: '400' });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    const image = await served(reply.body.data, 'icon');
    assert.ok(image.bytes.length <= 512 * KB, `${image.bytes.length} bytes`);
    const meta = await sharp(image.bytes).metadata();
    assert.equal(meta.width! * 400, meta.height! * 600, 'the crop\'s shape');
  });

  test('cropping the stored image: the rectangle in its pixels; outside it 400 invalid_request; no image 404', async () => {
    const photo = await sharp({ create: { width: 200, height: 100, channels: 3, background: '#0000ff' } }).jpeg().toBuffer();
    const set = await uploadImage(owner, 'logo', photo);
    assert.equal(set.status, 200, JSON.stringify(set.body));
    const cropped = await owner.call('POST', `/api/agents/${agentId}/branding/logo/crop`, { x: 20, y: 10, width: 50, height: 80 });
    assert.equal(cropped.status, 200, JSON.stringify(cropped.body));
    assert.notEqual(cropped.body.data.branding.logoUrl, set.body.data.branding.logoUrl, 'a new version, so caches see the new image');
    const image = await served(cropped.body.data, 'logo');
    assert.equal(image.type, 'image/jpeg');
    const meta = await sharp(image.bytes).metadata();
    assert.deepEqual([meta.width, meta.height], [50, 80]);
    for (const outsideRect of [{ x: 190, y: 0, width: 20, height: 10 }, { x: 0, y: 0, width: 51, height: 81 }]) {
      assertError(await owner.call('POST', `/api/agents/${agentId}/branding/logo/crop`, outsideRect), 400, 'invalid_request');
    }
    assertError(await owner.call('POST', `/api/agents/${agentId}/branding/logo/crop`, { x: -1, y: 0, width: 5, height: 5 }), 400, 'invalid_request');
    const bare = await seedAgent(service, await service.seedWorkspace({ name: `Bare ${++counter}` }), 'Bare');
    assertError(await owner.call('POST', `/api/agents/${bare}/branding/icon/crop`, { x: 0, y: 0, width: 5, height: 5 }), 404, 'not_found');
    assertError(await uploadImage(owner, 'logo', photo, { x: '0', y: '0' }), 400, 'invalid_request');
    assertError(await uploadImage(owner, 'logo', photo, { x: '0', y: '0', width: '1', height: 'many' }), 400, 'invalid_request');
  });

  test('not an image, a damaged one or one over 10 MB: 415 unsupported_file_type or 413 file_too_large, never a 500', async () => {
    assertError(await uploadImage(owner, 'logo', 'just some text'), 415, 'unsupported_file_type');
    assertError(await uploadImage(owner, 'logo', '<html><body><svg></svg></body></html>'), 415, 'unsupported_file_type');
    const damaged = Buffer.concat([RED_PNG.subarray(0, 16), Buffer.alloc(200, 7)]);
    assertError(await uploadImage(owner, 'logo', damaged, { x: '0', y: '0', width: '1', height: '1' }), 415, 'unsupported_file_type');
    assertError(await uploadImage(owner, 'logo', Buffer.alloc(10 * 1024 * 1024 + 1, 0x89)), 413, 'file_too_large');
    // A picture of 30 000 × 30 000 units in a few bytes, one unit of it drawn 512 pixels wide: 460 billion pixels (a pixel bomb).
    const bomb = `<svg xmlns="http://www.w3.org/2000/svg" width="30000" height="30000"><rect width="30000" height="30000"/></svg>`;
    assertError(await uploadImage(owner, 'logo', bomb, { x: '0', y: '0', width: '1', height: '1' }), 413, 'file_too_large');
    // The whole of it is drawn 512 pixels on its side: nothing to refuse.
    assert.equal((await uploadImage(owner, 'logo', bomb)).status, 200);
  });

  test('a member limited to other agents gets 404 not_found, as does a foreign agent; the CSRF token is needed', async () => {
    const other = await seedAgent(service, ws, 'Other brand');
    const member = await addPerson(service, owner, `brander${++counter}@example.org`, 'member', [other]);
    assertError(await uploadImage(member, 'logo', RED_PNG), 404, 'not_found');
    assertError(await member.call('POST', `/api/agents/${agentId}/branding/logo/crop`, { x: 0, y: 0, width: 1, height: 1 }), 404, 'not_found');
    const foreign = await seedAgent(service, await service.seedWorkspace({ name: `Foreign brand ${++counter}` }), 'Foreign');
    assertError(await uploadImage(owner, 'logo', RED_PNG, {}, foreign), 404, 'not_found');
    assertError(await sendForm(service, owner, `/api/agents/${agentId}/branding/logo`, formOf([['red.png', RED_PNG]]), { csrf: null }), 403, 'forbidden');
    assert.equal((await uploadImage(member, 'logo', RED_PNG, {}, other)).status, 200);
  });
});

describe('an SVG keeps its picture and nothing else', () => {
  const hostile = (): Record<string, string> => ({
    script: `<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><script>alert(document.cookie)</script><script href="${outsideBase}/s.js"/><rect width="40" height="40" fill="#00ff00"/></svg>`,
    events: `<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40" onload="alert(1)"><rect width="40" height="40" fill="#00ff00" onclick="alert(2)" onmouseover="alert(3)"/><set attributeName="onmouseover" to="alert(4)"/><animate attributeName="href" to="javascript:alert(5)"/></svg>`,
    javascriptLink: `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="40" height="40"><a xlink:href="javascript:alert(1)"><rect width="40" height="40" fill="#00ff00"/></a><a href="data:text/html,&lt;script&gt;alert(1)&lt;/script&gt;"><circle r="3"/></a></svg>`,
    foreignObject: `<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><rect width="40" height="40" fill="#00ff00"/><foreignObject width="40" height="40"><iframe xmlns="http://www.w3.org/1999/xhtml" src="${outsideBase}/frame"></iframe><img xmlns="http://www.w3.org/1999/xhtml" src="${outsideBase}/img.png" onerror="alert(1)"/></foreignObject></svg>`,
    outsideImage: `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="40" height="40"><rect width="40" height="40" fill="#00ff00"/><image href="${outsideBase}/a.png" width="40" height="40"/><image xlink:href="${outsideBase}/b.png" width="40" height="40"/><filter id="f"><feImage href="${outsideBase}/c.png"/></filter></svg>`,
    outsideUse: `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="40" height="40"><rect width="40" height="40" fill="#00ff00"/><use xlink:href="${outsideBase}/sprite.svg#icon"/><use href="${outsideBase}/other.svg#x"/></svg>`,
    styleImport: `<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><style>@import url(${outsideBase}/x.css); @import "${outsideBase}/y.css"; rect { fill: #00ff00; background: url(${outsideBase}/bg.png) }</style><rect width="40" height="40" style="fill:#00ff00;stroke:url(${outsideBase}/p.svg#p)"/></svg>`,
    outsideFill: `<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><rect width="40" height="40" fill="#00ff00"/><rect width="40" height="40" fill="url(${outsideBase}/pattern.svg#p)" mask="url(${outsideBase}/m.svg#m)" filter="url(${outsideBase}/f.svg#f)"/></svg>`,
    externalEntity: `<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY net SYSTEM "${outsideBase}/xxe"><!ENTITY disk SYSTEM "file:///etc/passwd">]><svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><rect width="40" height="40" fill="#00ff00"/><text y="20">&net;&disk;</text></svg>`,
    entityBomb: `<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;"><!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;"><!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;"><!ENTITY g "&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;"><!ENTITY h "&g;&g;&g;&g;&g;&g;&g;&g;&g;&g;">]><svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><text>&h;</text></svg>`,
  });

  test('each hostile SVG is stored as a PNG (or refused), and nothing it points to is fetched', async () => {
    outsideHits = [];
    for (const [name, svg] of Object.entries(hostile())) {
      const reply = await uploadImage(owner, 'icon', svg);
      if (name === 'externalEntity' || name === 'entityBomb') {
        // External entities are never read, and entities that multiply are stopped: such an SVG is refused whole.
        assertError(reply, 415, 'unsupported_file_type');
        continue;
      } else {
        assert.equal(reply.status, 200, `${name}: ${JSON.stringify(reply.body)}`);
      }
      const image = await served(reply.body.data, 'icon');
      assert.equal(image.type, 'image/png', name);
      assert.deepEqual((await sharp(image.bytes).metadata()).format, 'png', name);
      const text = image.bytes.toString('latin1');
      for (const word of ['<script', 'alert', 'onload', 'onclick', 'foreignObject', 'javascript', '@import', '127.0.0.1', 'xlink', 'href']) {
        assert.ok(!text.includes(word), `${name}: "${word}" survived`);
      }
      assert.deepEqual(await pixelAt(image.bytes, 256, 256), [0, 255, 0, 255], `${name}: the picture is kept`);
    }
    assert.deepEqual(outsideHits, [], 'no outside reference was fetched');
  });

  test('a file on the service\'s disk named by an SVG is not drawn into it; an image inside the SVG (data:) is', async () => {
    const onDisk = `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="10" height="10"><image xlink:href="file://${redFile}" width="10" height="10"/><image href="${redFile}" width="10" height="10"/></svg>`;
    const fromDisk = await uploadImage(owner, 'icon', onDisk);
    assert.equal(fromDisk.status, 200, JSON.stringify(fromDisk.body));
    assert.equal((await pixelAt((await served(fromDisk.body.data, 'icon')).bytes, 5, 5))[3], 0, 'transparent: the file was not read');
    const inside = `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><image href="data:image/png;base64,${RED_PNG.toString('base64')}" width="10" height="10"/></svg>`;
    const drawn = await uploadImage(owner, 'icon', inside);
    assert.equal(drawn.status, 200, JSON.stringify(drawn.body));
    assert.deepEqual(await pixelAt((await served(drawn.body.data, 'icon')).bytes, 5, 5), [255, 0, 0, 255]);
  });

  test('an SVG is drawn 512 pixels on its longer side; a crop is in its own units and drawn at that size', async () => {
    const wide = `<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100"><rect width="100" height="100" fill="#ff0000"/><rect x="100" width="100" height="100" fill="#0000ff"/></svg>`;
    const whole = await uploadImage(owner, 'logo', wide);
    assert.equal(whole.status, 200, JSON.stringify(whole.body));
    const wholeMeta = await sharp((await served(whole.body.data, 'logo')).bytes).metadata();
    assert.deepEqual([wholeMeta.width, wholeMeta.height], [512, 256]);
    const right = await uploadImage(owner, 'logo', wide, { x: '100', y: '0', width: '100', height: '100' });
    assert.equal(right.status, 200, JSON.stringify(right.body));
    const image = (await served(right.body.data, 'logo')).bytes;
    const meta = await sharp(image).metadata();
    assert.deepEqual([meta.width, meta.height], [512, 512]);
    assert.deepEqual(await pixelAt(image, 10, 10), [0, 0, 255, 255], 'the right half, blue');
    assertError(await uploadImage(owner, 'logo', wide, { x: '150', y: '0', width: '100', height: '100' }), 400, 'invalid_request');
  });
});
