/**
 * What the owner's app asks of the node itself: a fresh one-time link that opens the UI in a
 * browser, and the node's id, version, URLs, data folder and custody backend. Schemas:
 * contract/node/owner.ts.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { NodeInfo, UiLink } from '../../../../contract/node/owner.ts';

const tags = ['owner'];

export async function infoRoutes(app: FastifyInstance, { nodeInfo, uiLink }: { nodeInfo: () => NodeInfo; uiLink: () => string }): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.post(
    '/v1/node/ui-link',
    { config: { auth: 'owner' }, schema: { tags, summary: 'A fresh one-time link that opens the UI in a browser', response: { 200: UiLink } } },
    async () => ({ ui_url: uiLink() }),
  );

  api.get(
    '/v1/node/info',
    { config: { auth: 'owner' }, schema: { tags, summary: "The node's id, version, URLs, data folder and custody backend", response: { 200: NodeInfo } } },
    async () => nodeInfo(),
  );
}
