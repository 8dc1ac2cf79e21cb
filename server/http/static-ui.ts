/**
 * Headless, the node serves the built renderer at /ui/ so a browser can be the desktop window;
 * `/` sends a browser there. Scripts and styles go out compressed: the build writes a brotli and a
 * gzip copy beside each (scripts/precompress.ts) and the browser's Accept-Encoding picks one; a
 * build without them is served as it is. Content-hashed files are cached for a year, index.html
 * revalidated every time (server/http/ui-cache-policy.ts).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { declareRoutesAuth } from './route-auth.ts';
import { insideRoot, uiCacheControl } from './ui-cache-policy.ts';

/** The renderer is same-origin here, so its API calls need no CORS. */
const UI_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; " +
  "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

export async function serveUi(app: FastifyInstance, { uiDir }: { uiDir: string | null }): Promise<void> {
  // Someone opening the node's address in a browser wants the app, not `{"detail":"No route GET /"}`.
  // Only the loopback listener mounts this plugin: the peer listener keeps answering 404 at `/`.
  // Public: the UI's files hold no data; the UI signs in over the API like any other client.
  app.get('/', { config: { auth: 'public' } }, async (_request, reply) => reply.redirect('/ui/', 302));
  if (uiDir === null || !existsSync(join(uiDir, 'index.html'))) {
    app.get('/ui/', { config: { auth: 'public' } }, async (_request, reply) =>
      reply.code(503).type('text/plain').send('The UI is not built. Run `npm run build`, then reload.'),
    );
    return;
  }
  // The static plugin's routes carry no config: its own context declares their mode.
  await app.register(async (files) => {
    declareRoutesAuth(files, 'public');
    await files.register(fastifyStatic, {
      root: uiDir,
      prefix: '/ui/',
      index: ['index.html'],
      preCompressed: true,
      // Set per file below instead of one max-age for all.
      cacheControl: false,
      setHeaders: (res, path) => {
        // `path` is the file sent: `x.js.br` for a compressed copy, whose cache rule is x.js's.
        res.header('cache-control', uiCacheControl(insideRoot(uiDir, path.replace(/\.(br|gz)$/, ''))));
        res.header('content-security-policy', UI_CSP);
        res.header('x-content-type-options', 'nosniff');
        res.header('referrer-policy', 'no-referrer');
      },
    });
  });
  app.get('/ui', { config: { auth: 'public' } }, async (_request, reply) => reply.redirect('/ui/'));
}
