/**
 * How long a browser may keep each file of the built renderer, the same for the headless node's
 * /ui/ (server/http/static-ui.ts) and Electron's app:// (main/app-protocol.ts).
 *
 * The bundler names every script, stylesheet and image under assets/ after a hash of its contents
 * (`index-BZCE0W8c.js`): a new build makes new names, so those files never change under one name
 * and are kept for a year without asking again. index.html names them and must be asked for every
 * time (`no-cache` means "revalidate", not "do not store"), or a browser would keep loading an old
 * build's scripts.
 */
import { sep } from 'node:path';

/** The folder of the renderer build whose file names carry a content hash (vite's `assetsDir`). */
export const HASHED_ASSETS_DIR = 'assets';

export const IMMUTABLE_CACHE = 'public, max-age=31536000, immutable';
export const REVALIDATE_CACHE = 'no-cache';

/** The Cache-Control for `relativePath`, a path inside the renderer build (either separator). */
export function uiCacheControl(relativePath: string): string {
  const segments = relativePath.split(/[\\/]/).filter((segment) => segment !== '' && segment !== '.');
  return segments.length > 1 && segments[0] === HASHED_ASSETS_DIR ? IMMUTABLE_CACHE : REVALIDATE_CACHE;
}

/** The path of `file` inside `rootDir`, for a file already known to lie inside it. */
export function insideRoot(rootDir: string, file: string): string {
  const root = rootDir.endsWith(sep) ? rootDir : `${rootDir}${sep}`;
  return file.startsWith(root) ? file.slice(root.length) : file;
}
