/**
 * Text recognition (OCR) with tesseract.js, offline: the trained data of each language
 * comes from its @tesseract.js-data package on disk (ocr-worker.cjs), nothing is fetched
 * and nothing is cached or written. Callers bound it: it runs inside the bounded reader
 * process (file-reader.ts), whose memory bound counts tesseract's WebAssembly memory
 * too, and which is killed when its time is up (tesseract's own thread goes with it).
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Tesseract's names of the languages the service speaks. */
export const OCR_LANGUAGES = { en: 'eng', nl: 'nld', fr: 'fra', de: 'deu', es: 'spa' } as const;
export type OcrLanguage = keyof typeof OCR_LANGUAGES;

const WORKER_PATH = fileURLToPath(new URL('./ocr-worker.cjs', import.meta.url));
/** Where the trained data lives (the packages' parent folder); ocr-worker.cjs finds each language's file in it. */
const LANG_PATH = path.dirname(path.dirname(createRequire(import.meta.url).resolve('@tesseract.js-data/eng/package.json')));

export interface Recogniser {
  /** The text in a picture (PNG, JPEG, WebP, BMP, PNM). */
  recognise(picture: Uint8Array): Promise<string>;
  close(): Promise<void>;
}

/** A recogniser for these languages (the first one leads); one per reading, closed after it. */
export async function createRecogniser(languages: readonly OcrLanguage[]): Promise<Recogniser> {
  const codes = [...new Set(languages)].map((language) => OCR_LANGUAGES[language]);
  // Loaded at the first picture: a process that never reads one does not hold it.
  const { default: Tesseract } = await import('tesseract.js');
  const worker = await Tesseract.createWorker(codes.length > 0 ? codes : ['eng'], Tesseract.OEM.LSTM_ONLY, {
    workerPath: WORKER_PATH,
    langPath: LANG_PATH,
    cacheMethod: 'readOnly',
    gzip: true,
  });
  return {
    recognise: async (picture) => (await worker.recognize(Buffer.from(picture))).data.text,
    close: async () => void (await worker.terminate()),
  };
}
