/**
 * The `app://` protocol that serves the built renderer (out/renderer) to Electron windows.
 *
 * Why a custom protocol instead of `file://`: a standard, secure scheme gives the renderer a real
 * origin (`app://svc-node`), so the CSP `'self'` and the node's Origin check mean something, and
 * nothing else on disk is reachable (electron security checklist item 18). The response carries
 * the CSP as a header; `bypassCSP` is never set.
 *
 * Pure logic only (path resolution, content types, the CSP string): main/index.ts does the I/O.
 */
import { extname, isAbsolute, relative, resolve } from 'node:path';
import { insideRoot, uiCacheControl } from '../server/http/ui-cache-policy.ts';

export const APP_SCHEME = 'app';
export const APP_HOST = 'svc-node';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
/** What a window loads first. The router then lives in the fragment (`#/identities`). */
export const APP_ENTRY_URL = `${APP_ORIGIN}/index.html`;

/**
 * The file under `rootDir` that `requestUrl` names, or null when the request must be refused:
 * a foreign scheme or host, an encoded NUL or separator trick, or any path that would leave
 * `rootDir` (`..`, absolute paths, backslashes on Windows). `/` maps to `index.html`.
 */
export function resolveAppPath(rootDir: string, requestUrl: string): string | null {
  let url: URL;
  try {
    url = new URL(requestUrl);
  } catch {
    return null;
  }
  if (url.protocol !== `${APP_SCHEME}:` || url.host !== APP_HOST) return null;
  let pathname: string;
  try {
    pathname = decodeURIComponent(url.pathname);
  } catch {
    return null;
  }
  if (pathname.includes('\0') || pathname.includes('\\')) return null;
  const segments = pathname.split('/').filter((segment) => segment !== '');
  if (segments.some((segment) => segment === '..' || segment === '.')) return null;
  const relativePath = segments.length === 0 ? 'index.html' : segments.join('/');
  const file = resolve(rootDir, relativePath);
  return isInside(rootDir, file) ? file : null;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

export function contentTypeFor(file: string): string {
  return CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * The origin of a node URL, which must be plain HTTP on loopback: the renderer talks to the node
 * running in this very process and to nothing else.
 */
export function loopbackOrigin(url: string): string {
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' || !LOOPBACK_HOSTS.has(parsed.hostname)) {
    throw new Error(`Refusing a non-loopback node URL in the CSP: ${url}`);
  }
  return parsed.origin;
}

/**
 * The Content-Security-Policy header for every `app://` response. `connect-src` lists only the
 * node's loopback origin(s) (the three surfaces share one listener by default, but may not).
 * `style-src 'unsafe-inline'` is for Vue's style bindings; scripts are only our own files.
 * `img-src` adds the same origins for document images and theme logos in the editor's preview.
 */
export function buildCsp(nodeUrls: readonly string[]): string {
  const origins = [...new Set(nodeUrls.map(loopbackOrigin))];
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    `img-src 'self' data: ${origins.join(' ')}`,
    "font-src 'self'",
    `connect-src ${origins.join(' ')}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * Headers sent with every `app://` file under `rootDir`: the same cache rule as the headless node's
 * /ui/ (content-hashed assets kept, index.html revalidated). Files come off the local disk here, so
 * they go out uncompressed.
 */
export function appResponseHeaders(rootDir: string, file: string, csp: string): Record<string, string> {
  return {
    'content-type': contentTypeFor(file),
    'content-security-policy': csp,
    'x-content-type-options': 'nosniff',
    'cache-control': uiCacheControl(insideRoot(rootDir, file)),
  };
}

/** True when `file` (already resolved, e.g. by `realpath`) lies inside `rootDir`. */
export function isInside(rootDir: string, file: string): boolean {
  const rel = relative(resolve(rootDir), resolve(file));
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}
