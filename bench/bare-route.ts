/**
 * The same-run baseline: a bare Fastify route on loopback, doing nothing but answer JSON.
 */
import Fastify from 'fastify';

export async function startBareRoute(): Promise<{ url: string; close: () => Promise<void> }> {
  const app = Fastify();
  app.get('/ping', async () => ({ did_aw: 'did:svc:x', current_did_key: 'did:key:z' }));
  app.post('/ping', async (request) => ({ received: typeof request.body }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  return { url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/ping`, close: () => app.close() };
}
