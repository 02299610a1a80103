'use strict';
/**
 * The thread tesseract.js recognises text in (its `workerPath`): tesseract.js's own
 * worker script, given an adapter that reads the trained data of each language from
 * its installed @tesseract.js-data package and can neither fetch nor write anything.
 * tesseract.js itself would look for every language in one folder (or on a CDN).
 */
const { readFile } = require('node:fs/promises');
const path = require('node:path');
const { parentPort } = require('node:worker_threads');
const worker = require('tesseract.js/src/worker-script');
const getCore = require('tesseract.js/src/worker-script/node/getCore');
const gunzip = require('tesseract.js/src/worker-script/node/gunzip');

const LANGUAGE_CODE = /^([a-z]{3})\.traineddata(\.gz)?$/;

/** `<anything>/eng.traineddata` -> the LSTM model shipped in @tesseract.js-data/eng. */
function trainedDataPath(wanted) {
  const match = LANGUAGE_CODE.exec(path.basename(wanted));
  if (!match) throw new Error(`no trained data for ${wanted}`);
  return require.resolve(`@tesseract.js-data/${match[1]}/4.0.0_best_int/${match[1]}.traineddata.gz`);
}

parentPort.on('message', (packet) => worker.dispatchHandlers(packet, (message) => parentPort.postMessage(message)));

worker.setAdapter({
  getCore,
  gunzip,
  fetch: async (url) => {
    throw new Error(`text recognition never fetches (${url})`);
  },
  readCache: (wanted) => readFile(trainedDataPath(wanted)),
  writeCache: async () => {},
  deleteCache: async () => {},
  checkCache: async () => false,
});
