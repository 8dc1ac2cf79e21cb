import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { enforceRouteScopes } from './route-scopes.ts';

describe('enforceRouteScopes', () => {
  it('refuses to register a library route that the scope table does not name', async () => {
    const app = Fastify();
    const start = async () => {
      await app.register(async (scoped) => {
        enforceRouteScopes(scoped);
        scoped.get('/v1/shelf', async () => ({}));
        scoped.post('/v1/shelf/export-everything', async () => ({}));
      });
      await app.ready();
    };
    await expect(start()).rejects.toThrow(/POST \/v1\/shelf\/export-everything has no scope in LIBRARY_ROUTE_SCOPES/);
  });

  it('refuses a request that reached a route without a verified member (401)', async () => {
    const app = Fastify();
    await app.register(async (scoped) => {
      enforceRouteScopes(scoped);
      scoped.get('/v1/shelf', async () => ({ reached: true }));
    });
    const response = await app.inject({ method: 'GET', url: '/v1/shelf' });
    expect(response.statusCode).toBe(401);
    await app.close();
  });
});
