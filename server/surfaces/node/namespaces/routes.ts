/**
 * The owner's namespaces (`/v1/node/namespaces`): the node's namespaces, and the owner's consent
 * to one (core/namespaces/service.ts). Schemas: contract/core/namespaces.ts, contract/node/owner.ts.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { Namespace, NamespaceList } from '../../../../contract/core/namespaces.ts';
import { CreateNamespaceBody } from '../../../../contract/node/owner.ts';
import type { CoreServices } from '../../core/services.ts';

const tags = ['owner'];

export async function namespaceRoutes(app: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  const { namespaces } = services;
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/v1/node/namespaces',
    { config: { auth: 'owner' }, schema: { tags, summary: "The node's namespaces, by domain", response: { 200: NamespaceList } } },
    async () => ({ namespaces: namespaces.list() }),
  );

  // The owner's consent to a namespace: controlled by an outside key (`controller_did`, which then
  // signs its address writes), or by one this node creates and holds in custody.
  api.post(
    '/v1/node/namespaces',
    {
      config: { auth: 'owner' },
      schema: {
        tags,
        summary: "The owner's consent to a namespace, controlled by an outside key or one the node holds (201; 200 when it already is)",
        body: CreateNamespaceBody,
        response: { 200: Namespace, 201: Namespace },
      },
    },
    async (request, reply) => {
      const { namespace, created } = await namespaces.consentByOwner(request.body.domain, request.body.controller_did);
      return reply.code(created ? 201 : 200).send(namespace);
    },
  );
}
