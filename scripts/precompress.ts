/**
 * Writes a brotli (`.br`) and a gzip (`.gz`) copy beside each text file of the renderer build, once
 * at build time, so the headless node serves scripts compressed (server/http/static-ui.ts picks the
 * copy the browser's Accept-Encoding asks for) without compressing on every request. Brotli at its
 * highest quality costs a few seconds of build once and saves a fifth over gzip on every load.
 */
import { readdirSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

const COMPRESSIBLE = new Set(['.js', '.mjs', '.css', '.html', '.svg', '.json', '.txt', '.map']);
/** Below this a compressed copy saves less than the bytes of its own headers. */
const MIN_BYTES = 1024;

/** Both copies of one file; resolves to how many were written. */
async function compressFile(file: string): Promise<number> {
  const bytes = await readFile(file);
  if (bytes.length < MIN_BYTES) return 0;
  const copies = await Promise.all([
    brotli(bytes, {
      params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
    }).then((compressed) => ['.br', compressed] as const),
    gzipAsync(bytes, { level: 9 }).then((compressed) => ['.gz', compressed] as const),
  ]);
  let written = 0;
  for (const [suffix, compressed] of copies) {
    // A copy no smaller than the file is not worth a request's negotiation.
    if (compressed.length >= bytes.length) continue;
    await writeFile(`${file}${suffix}`, compressed);
    written += 1;
  }
  return written;
}

/** Every compressible file under `dir`, on zlib's worker threads; resolves to how many copies were written. */
export async function precompress(dir: string): Promise<number> {
  const files = readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && COMPRESSIBLE.has(extname(entry.name)))
    .map((entry) => join(entry.parentPath, entry.name));
  const counts = await Promise.all(files.map(compressFile));
  return counts.reduce((sum, count) => sum + count, 0);
}
