/**
 * The guides for the people who run Parley (docs/guides/<language>/) exist in
 * English and Dutch with the same structure, and every link and image in them
 * leads somewhere: pure file checks, no service and no store.
 *
 * Also held here, because the guides are read by owners, not developers: they
 * name only settings and commands that exist, they do not send a reader into
 * the internals (docs/*.md, the source, migrations, spec sections), and the
 * webhook guide's verification code accepts a delivery signed as Parley signs it,
 * and the widget guide's identity code signs an address as Parley verifies it.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { signatureHeader } from '../src/modules/webhooks/delivery.ts';
import { identityHash } from '../src/modules/visitors/identity.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const GUIDES = path.join(ROOT, 'docs', 'guides');
const LANGUAGES = ['en', 'nl'] as const;

interface CodeBlock {
  info: string;
  lines: string[];
}

interface Parsed {
  file: string;
  headings: { level: number; text: string }[];
  codeBlocks: CodeBlock[];
  /** Link and image targets, outside code. */
  targets: string[];
  /** The text outside code blocks. */
  prose: string;
  text: string;
}

function markdownFiles(language: string): string[] {
  const dir = path.join(GUIDES, language);
  return readdirSync(dir)
    .filter((name) => name.endsWith('.md') && statSync(path.join(dir, name)).isFile())
    .sort();
}

function parse(file: string): Parsed {
  const text = readFileSync(file, 'utf8');
  const headings: Parsed['headings'] = [];
  const codeBlocks: CodeBlock[] = [];
  const prose: string[] = [];
  let open: { fence: string; block: CodeBlock } | undefined;
  for (const line of text.split('\n')) {
    const fence = /^\s*(`{3,}|~{3,})(.*)$/.exec(line);
    if (open) {
      if (fence && fence[1].startsWith(open.fence) && fence[2].trim() === '') open = undefined;
      else open.block.lines.push(line);
      continue;
    }
    if (fence) {
      const block = { info: fence[2].trim(), lines: [] };
      codeBlocks.push(block);
      open = { fence: fence[1], block };
      continue;
    }
    prose.push(line);
    const heading = /^(#{1,6})\s+(.+?)\s*#*\s*$/.exec(line);
    if (heading) headings.push({ level: heading[1].length, text: heading[2] });
  }
  assert.equal(open, undefined, `${file}: a code block is never closed`);
  const outsideInlineCode = prose.join('\n').replace(/`[^`\n]*`/g, '');
  const targets = [
    ...[...outsideInlineCode.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]),
    ...[...outsideInlineCode.matchAll(/<(?:a|img)\b[^>]*?\b(?:href|src)="([^"]+)"/gi)].map((m) => m[1]),
  ];
  return { file, headings, codeBlocks, targets, prose: prose.join('\n'), text };
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(headings: Parsed['headings']): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const { text } of headings) {
    const plain = text.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*_]/g, (c) => (c === '_' ? '_' : ''));
    const base = plain.toLowerCase().trim().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  }
  return result;
}

const parsed = new Map<string, Parsed>();
for (const language of LANGUAGES) {
  for (const name of markdownFiles(language)) {
    const file = path.join(GUIDES, language, name);
    parsed.set(file, parse(file));
  }
}
const guideFiles = [...parsed.keys()];

describe('every English guide has a Dutch counterpart with the same structure', () => {
  test('the same guides exist in both languages, with an index in each', () => {
    assert.deepEqual(markdownFiles('nl'), markdownFiles('en'));
    assert.ok(markdownFiles('en').includes('README.md'), 'docs/guides/en/README.md is the index');
    assert.ok(markdownFiles('en').length > 1, 'there are guides besides the index');
  });

  for (const name of markdownFiles('en')) {
    const en = parsed.get(path.join(GUIDES, 'en', name))!;
    const nl = parsed.get(path.join(GUIDES, 'nl', name));
    test(`${name}: the same headings, levels and code blocks in Dutch`, () => {
      assert.ok(nl, `docs/guides/nl/${name} is missing`);
      assert.deepEqual(
        nl.headings.map((h) => h.level),
        en.headings.map((h) => h.level),
        `heading levels differ:\n en: ${en.headings.map((h) => `${'#'.repeat(h.level)} ${h.text}`).join('\n     ')}\n nl: ${nl.headings.map((h) => `${'#'.repeat(h.level)} ${h.text}`).join('\n     ')}`,
      );
      assert.deepEqual(
        nl.codeBlocks.map((b) => `${b.info || '(none)'}, ${b.lines.length} lines`),
        en.codeBlocks.map((b) => `${b.info || '(none)'}, ${b.lines.length} lines`),
        'the code blocks differ in number, language or length',
      );
      assert.equal(en.headings.filter((h) => h.level === 1).length, 1, 'one title');
    });
  }

  test('each index lists every guide of its language', () => {
    for (const language of LANGUAGES) {
      const index = parsed.get(path.join(GUIDES, language, 'README.md'))!;
      const linked = new Set(index.targets.map((t) => t.split('#')[0]));
      for (const name of markdownFiles(language).filter((n) => n !== 'README.md')) {
        assert.ok(linked.has(name), `docs/guides/${language}/README.md does not link ${name}`);
      }
    }
  });
});

describe('every relative link and image in the guides resolves', () => {
  for (const file of guideFiles) {
    const guide = parsed.get(file)!;
    const shown = path.relative(ROOT, file);
    test(`${shown}: links and images lead to a file (and anchors to a heading), inside the guides`, () => {
      for (const target of guide.targets) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: and the like
        const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
        const resolved = pathPart === '' ? file : path.resolve(path.dirname(file), decodeURIComponent(pathPart));
        assert.ok(existsSync(resolved), `${shown}: ${target} leads to no file`);
        assert.ok(
          resolved.startsWith(GUIDES + path.sep),
          `${shown}: ${target} leads out of docs/guides; the internals are not for owners`,
        );
        if (anchor !== undefined) {
          assert.ok(resolved.endsWith('.md'), `${shown}: ${target} has an anchor on a file that is not a guide`);
          const headings = (parsed.get(resolved) ?? parse(resolved)).headings;
          assert.ok(anchors(headings).has(anchor), `${shown}: ${target}: no heading has the anchor #${anchor}`);
        }
      }
    });
  }
});

describe('the guides are written for people who run Parley, not for its developers', () => {
  const config = readFileSync(path.join(ROOT, 'src', 'config.ts'), 'utf8');
  const adminCli = readFileSync(path.join(ROOT, 'src', 'cli', 'admin.ts'), 'utf8');

  for (const file of guideFiles) {
    const guide = parsed.get(file)!;
    const shown = path.relative(ROOT, file);
    test(`${shown}: every setting and admin command it names exists`, () => {
      for (const [name] of guide.text.matchAll(/\bPARLEY_[A-Z0-9_]+\b|\b(?:DATABASE|REDIS|SMTP)_URL\b|\bOPENAI_[A-Z_]+\b/g)) {
        assert.ok(config.includes(`env.${name}`), `${shown}: ${name} is not read in src/config.ts`);
      }
      for (const [, command] of guide.text.matchAll(/npx parley admin ([a-z-]+)/g)) {
        assert.ok(command === '--help' || new RegExp(`^  ${command}\\b`, 'm').test(adminCli), `${shown}: "npx parley admin ${command}" is no command`);
      }
    });

    test(`${shown}: no spec sections, source files, migrations or search internals`, () => {
      for (const [pattern, what] of [
        [/\bspec(?:ification)?\s+\d+(?:\.\d+)*/i, 'a spec section'],
        [/§\s*\d/, 'a section number'],
        [/\bmigrations?\/|\b\d{3}_[a-z_]+\.sql\b/i, 'a migration file'],
        [/\bsrc\/|\.ts\b/, 'a source file'],
        [/\bBM25\b|\bHNSW\b|\bts_rank\b/i, 'search internals'],
      ] as const) {
        const hit = pattern.exec(guide.text);
        assert.equal(hit, null, `${shown} names ${what}: "${hit?.[0]}"`);
      }
    });
  }
});

describe("the webhook guide's verification code accepts Parley's signature", () => {
  for (const language of LANGUAGES) {
    test(`docs/guides/${language}/webhooks.md: the Node.js verify accepts a real delivery and refuses a changed or old one`, async () => {
      const guide = parsed.get(path.join(GUIDES, language, 'webhooks.md'))!;
      const block = guide.codeBlocks.find((b) => b.info === 'js' && b.lines.some((l) => l.startsWith('export function verify')));
      assert.ok(block, 'a js block with export function verify');
      const start = block.lines.findIndex((l) => l.startsWith('export function verify'));
      const end = block.lines.indexOf('}', start);
      const source = [`import { createHmac, timingSafeEqual } from 'node:crypto';`, ...block.lines.slice(start, end + 1)].join('\n');
      const { verify } = (await import(`data:text/javascript;base64,${Buffer.from(source).toString('base64')}`)) as {
        verify: (body: Buffer, header: string | undefined, secret: string) => boolean;
      };
      const body = '{"id":"evt_1","type":"lead.created","data":{"name":"Zoë Çelik ✓"}}';
      const secret = 'whsec_guide';
      const header = signatureHeader(secret, body, new Date());
      assert.equal(verify(Buffer.from(body), header, secret), true, 'a genuine delivery');
      assert.equal(verify(Buffer.from(body), header, 'another secret'), false, 'another secret');
      assert.equal(verify(Buffer.from(body.replace('Zoë', 'Zoe')), header, secret), false, 'a changed body');
      assert.equal(verify(Buffer.from(body), signatureHeader(secret, body, new Date(Date.now() - 301_000)), secret), false, 'more than 300 s old');
      assert.equal(verify(Buffer.from(body), undefined, secret), false, 'no header');
      assert.equal(verify(Buffer.from(body), 't=1,v1=zz', secret), false, 'a malformed header');
    });
  }
});

describe("the widget guide's identity code signs an address as Parley verifies it", () => {
  for (const language of LANGUAGES) {
    test(`docs/guides/${language}/widget.md: the Node.js identityHash gives the hash the service accepts`, async () => {
      const guide = parsed.get(path.join(GUIDES, language, 'widget.md'))!;
      const block = guide.codeBlocks.find((b) => b.info === 'js' && b.lines.some((l) => l.startsWith('export function identityHash')));
      assert.ok(block, 'a js block with export function identityHash');
      const start = block.lines.findIndex((l) => l.startsWith('export function identityHash'));
      const end = block.lines.indexOf('}', start);
      const source = [`import { createHmac } from 'node:crypto';`, ...block.lines.slice(start, end + 1)].join('\n');
      const guideHash = ((await import(`data:text/javascript;base64,${Buffer.from(source).toString('base64')}`)) as {
        identityHash: (email: string, secret: string) => string;
      }).identityHash;
      const secret = 'is_0123456789abcdefghijABCDEFGHIJ0123456789abcdef';
      for (const email of ['lena@vos.example.org', 'Zoë.Çelik@example.com']) {
        assert.equal(guideHash(email, secret), identityHash(secret, email), email);
      }
      assert.notEqual(guideHash('Lena@vos.example.org', secret), identityHash(secret, 'lena@vos.example.org'), 'the address is signed as written');
    });
  }
});
