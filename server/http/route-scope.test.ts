import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { installErrorHandlers } from './error-handler.ts';
import { enforceRouteScopes, teamRoute } from './route-scope.ts';

describe('enforceRouteScopes', () => {
  it('refuses to start with a team route that declares no scope', async () => {
    const app = Fastify();
    const start = async () => {
      await app.register(async (scoped) => {
        enforceRouteScopes(scoped, 'library');
        scoped.get('/v1/shelf', { config: teamRoute('library:read') }, async () => ({}));
        scoped.post('/v1/shelf/export-everything', { config: { auth: 'team' } }, async () => ({}));
      });
      await app.ready();
    };
    await expect(start()).rejects.toThrow(/library route POST \/v1\/shelf\/export-everything declares no scope/);
  });

  it('refuses a request that reached a route without a verified member (401)', async () => {
    const app = Fastify();
    installErrorHandlers(app);
    await app.register(async (scoped) => {
      enforceRouteScopes(scoped, 'library');
      scoped.get('/v1/shelf', { config: teamRoute('library:read') }, async () => ({ reached: true }));
    });
    const response = await app.inject({ method: 'GET', url: '/v1/shelf' });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ code: 'SVC_ERR_AUTH_MISSING' });
    await app.close();
  });
});
