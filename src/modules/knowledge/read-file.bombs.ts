/**
 * Hostile files for the tests and the bench (not loaded by the service): a PDF and
 * a Word document of a few MB whose compressed parts inflate to gigabytes. They are
 * built from one compressed megabyte repeated, so making them costs milliseconds
 * and no memory.
 */
import { constants, crc32, deflateRawSync } from 'node:zlib';

const MB = 1 << 20;

/** Raw deflate blocks giving `megabytes` MB of `byte`, ending byte-aligned and not final. */
function repeatedBlocks(megabytes: number, byte: number): Buffer[] {
  const block = deflateRawSync(Buffer.alloc(MB, byte), { finishFlush: constants.Z_FULL_FLUSH });
  return Array<Buffer>(megabytes).fill(block);
}

const FINAL_EMPTY_BLOCK = deflateRawSync(Buffer.alloc(0));

function adler32OfRepeats(length: number, byte: number): number {
  const M = 65521n;
  const L = BigInt(length);
  const B = BigInt(byte);
  const a = (1n + L * B) % M;
  const b = (L + (B * L * (L + 1n)) / 2n) % M;
  return Number((b << 16n) | a);
}

/** A zlib stream (FlateDecode) of `megabytes` MB of `byte`. */
export function inflatingZlib(megabytes: number, byte = 0): Buffer {
  const adler = Buffer.alloc(4);
  adler.writeUInt32BE(adler32OfRepeats(megabytes * MB, byte));
  return Buffer.concat([Buffer.from([0x78, 0x9c]), ...repeatedBlocks(megabytes, byte), FINAL_EMPTY_BLOCK, adler]);
}

/** A one-page PDF whose content stream inflates to `megabytes` MB (spaces: valid content, nothing drawn). */
export function pdfBomb(megabytes = 1536): Buffer {
  const stream = inflatingZlib(megabytes, 0x20);
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n%\xE2\xE3\xCF\xD3\n', 'latin1')];
  const offsets: number[] = [];
  let length = parts[0].length;
  const add = (...chunks: Buffer[]) => {
    offsets.push(length);
    for (const chunk of chunks) {
      parts.push(chunk);
      length += chunk.length;
    }
  };
  add(Buffer.from('1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n'));
  add(Buffer.from('2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n'));
  add(Buffer.from('3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << >> /Contents 4 0 R >>\nendobj\n'));
  add(Buffer.from(`4 0 obj\n<< /Length ${stream.length} /Filter /FlateDecode >>\nstream\n`), stream, Buffer.from('\nendstream\nendobj\n'));
  const xref = length;
  const rows = offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('');
  parts.push(Buffer.from(`xref\n0 ${offsets.length + 1}\n0000000000 65535 f \n${rows}trailer\n<< /Size ${offsets.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`));
  return Buffer.concat(parts);
}

interface ZipEntry {
  name: string;
  /** Raw deflate data. */
  data: Buffer;
  size: number;
  crc: number;
}

function deflated(name: string, text: string): ZipEntry {
  const bytes = Buffer.from(text);
  return { name, data: deflateRawSync(bytes), size: bytes.length, crc: crc32(bytes) };
}

/** A Word document whose word/document.xml inflates to `megabytes` MB (one run of text of that many letters). */
export function docxBomb(megabytes = 1536): Buffer {
  const head = Buffer.from(
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
      '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>',
  );
  const tail = Buffer.from('</w:t></w:r></w:p></w:body></w:document>');
  let crc = crc32(head);
  const letters = Buffer.alloc(MB, 0x61);
  for (let i = 0; i < megabytes; i++) crc = crc32(letters, crc);
  crc = crc32(tail, crc);
  const document: ZipEntry = {
    name: 'word/document.xml',
    data: Buffer.concat([
      deflateRawSync(head, { finishFlush: constants.Z_FULL_FLUSH }),
      ...repeatedBlocks(megabytes, 0x61),
      deflateRawSync(tail),
    ]),
    size: head.length + megabytes * MB + tail.length,
    crc,
  };
  return zip([
    deflated(
      '[Content_Types].xml',
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>' +
        '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
    ),
    deflated(
      '_rels/.rels',
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
    ),
    document,
  ]);
}

function zip(entries: ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8); // deflate
    local.writeUInt32LE(entry.crc >>> 0, 14);
    local.writeUInt32LE(entry.data.length, 18);
    local.writeUInt32LE(entry.size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(entry.crc >>> 0, 16);
    central.writeUInt32LE(entry.data.length, 20);
    central.writeUInt32LE(entry.size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, entry.data);
    centrals.push(central, name);
    offset += local.length + name.length + entry.data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
