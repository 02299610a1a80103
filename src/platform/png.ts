/** A small PNG encoder: 8-bit grayscale, no filters (what text recognition is handed). */
import { crc32, deflateSync } from 'node:zlib';

export interface GrayImage {
  width: number;
  height: number;
  /** One byte a pixel, 0 black to 255 white, row by row. */
  pixels: Uint8Array;
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export function encodeGrayPng(image: GrayImage, level = 6): Buffer {
  const stride = image.width + 1;
  const rows = Buffer.alloc(stride * image.height);
  for (let y = 0; y < image.height; y++) {
    // Each row opens with its filter type; 0 is none.
    rows.set(image.pixels.subarray(y * image.width, (y + 1) * image.width), y * stride + 1);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(image.width, 0);
  header.writeUInt32BE(image.height, 4);
  header.set([8, 0, 0, 0, 0], 8); // 8 bits, grayscale, deflate, adaptive filtering, not interlaced
  return Buffer.concat([SIGNATURE, chunk('IHDR', header), chunk('IDAT', deflateSync(rows, { level })), chunk('IEND', Buffer.alloc(0))]);
}

function chunk(type: string, data: Buffer): Buffer {
  const typed = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const framed = Buffer.alloc(typed.length + 8);
  framed.writeUInt32BE(data.length, 0);
  typed.copy(framed, 4);
  framed.writeUInt32BE(crc32(typed), typed.length + 4);
  return framed;
}
