import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { APP_ENTRY_URL, appResponseHeaders, buildCsp, contentTypeFor, isInside, loopbackOrigin, resolveAppPath } from './app-protocol.ts';

const ROOT = resolve('/opt/svc-node/out/renderer');

describe('resolveAppPath', () => {
  it('maps app://svc-node/ paths into the renderer folder', () => {
    expect(resolveAppPath(ROOT, APP_ENTRY_URL)).toBe(join(ROOT, 'index.html'));
    expect(resolveAppPath(ROOT, 'app://svc-node/')).toBe(join(ROOT, 'index.html'));
    expect(resolveAppPath(ROOT, 'app://svc-node')).toBe(join(ROOT, 'index.html'));
    expect(resolveAppPath(ROOT, 'app://svc-node/assets/index-abc.js')).toBe(join(ROOT, 'assets', 'index-abc.js'));
    expect(resolveAppPath(ROOT, 'app://svc-node/assets/a%20b.css?v=1#x')).toBe(join(ROOT, 'assets', 'a b.css'));
  });

  it('refuses other schemes and hosts', () => {
    expect(resolveAppPath(ROOT, 'file:///etc/passwd')).toBeNull();
    expect(resolveAppPath(ROOT, 'app://other/index.html')).toBeNull();
    expect(resolveAppPath(ROOT, 'https://svc-node/index.html')).toBeNull();
    expect(resolveAppPath(ROOT, 'not a url')).toBeNull();
  });

  it('never leaves the root, whatever the spelling', () => {
    for (const url of [
      'app://svc-node/../../etc/passwd',
      'app://svc-node/%2e%2e/%2e%2e/etc/passwd',
      'app://svc-node/assets/%2E%2E/%2E%2E/main/index.js',
      'app://svc-node/assets/..%2f..%2fmain%2findex.js',
      'app://svc-node/..%5c..%5cmain%5cindex.js',
      'app://svc-node//etc/passwd',
    ]) {
      const file = resolveAppPath(ROOT, url);
      expect(file === null || isInside(ROOT, file), `${url} -> ${file}`).toBe(true);
    }
  });

  it('refuses encoded separators, dot segments, backslashes and NUL', () => {
    for (const url of [
      'app://svc-node/assets/..%2f..%2fmain%2findex.js',
      'app://svc-node/..%5c..%5cmain%5cindex.js',
      'app://svc-node/assets%5c..%5c..%5csecret',
      'app://svc-node/index.html%00.png',
      'app://svc-node/%E0%A4%A',
      'app://svc-node/./index.html%2f.',
    ]) {
      expect(resolveAppPath(ROOT, url), url).toBeNull();
    }
  });
});

describe('isInside', () => {
  it('is true only strictly inside the root', () => {
    expect(isInside(ROOT, join(ROOT, 'a', 'b.js'))).toBe(true);
    expect(isInside(ROOT, ROOT)).toBe(false);
    expect(isInside(ROOT, resolve(ROOT, '..', 'main', 'index.js'))).toBe(false);
    expect(isInside(ROOT, `${ROOT}-evil/x.js`)).toBe(false);
  });
});

describe('content types and headers', () => {
  it('knows the files a Vite build emits', () => {
    expect(contentTypeFor('/x/index.html')).toBe('text/html; charset=utf-8');
    expect(contentTypeFor('/x/a.JS')).toBe('text/javascript; charset=utf-8');
    expect(contentTypeFor('/x/a.css')).toBe('text/css; charset=utf-8');
    expect(contentTypeFor('/x/a.svg')).toBe('image/svg+xml');
    expect(contentTypeFor('/x/a.bin')).toBe('application/octet-stream');
  });

  it('sends the CSP and nosniff with every file', () => {
    const headers = appResponseHeaders('/x', '/x/index.html', "default-src 'none'");
    expect(headers['content-security-policy']).toBe("default-src 'none'");
    expect(headers['x-content-type-options']).toBe('nosniff');
  });

  it('keeps content-hashed assets for a year and revalidates index.html, as the headless node does', () => {
    expect(appResponseHeaders('/x', '/x/assets/index-BZCE0W8c.js', '')['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(appResponseHeaders('/x/', '/x/assets/index-BiGwVY8z.css', '')['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(appResponseHeaders('/x', '/x/index.html', '')['cache-control']).toBe('no-cache');
    // A file that merely has "assets" in its name is not in the hashed folder.
    expect(appResponseHeaders('/x', '/x/assets.html', '')['cache-control']).toBe('no-cache');
  });
});

describe('buildCsp', () => {
  it('limits connect-src (and images beyond the app) to the node loopback origins, deduplicated', () => {
    const csp = buildCsp(['http://127.0.0.1:41234', 'http://127.0.0.1:41234/', 'http://127.0.0.1:41235/docs']);
    const directives = new Map(csp.split('; ').map((d) => [d.split(' ')[0], d]));
    expect(directives.get('connect-src')).toBe('connect-src http://127.0.0.1:41234 http://127.0.0.1:41235');
    expect(directives.get('img-src')).toBe("img-src 'self' data: http://127.0.0.1:41234 http://127.0.0.1:41235");
    expect(directives.get('default-src')).toBe("default-src 'none'");
    expect(directives.get('script-src')).toBe("script-src 'self'");
    expect(directives.get('object-src')).toBe("object-src 'none'");
    expect(directives.get('frame-ancestors')).toBe("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-eval');
    expect(csp).not.toMatch(/connect-src[^;]*\*/);
  });

  it('refuses non-loopback or non-http node URLs', () => {
    expect(() => buildCsp(['https://example.com'])).toThrow(/non-loopback/);
    expect(() => buildCsp(['http://192.168.1.2:4000'])).toThrow(/non-loopback/);
    expect(() => buildCsp(['https://127.0.0.1:4000'])).toThrow(/non-loopback/);
    expect(loopbackOrigin('http://localhost:9/x')).toBe('http://localhost:9');
    expect(loopbackOrigin('http://[::1]:9/x')).toBe('http://[::1]:9');
  });
});
