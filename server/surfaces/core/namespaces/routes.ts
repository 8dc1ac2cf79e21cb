/**
 * Namespace and address routes (spec §4.1). Reads are public; every write carries a DIDKey
 * signature by the namespace controller over `{domain, name, operation, timestamp}`, declared as
 * `auth: 'didkey'` and checked here, since what is signed depends on the request. The identical
 * signed write again inside the window gets its first answer and runs no second time
 * (http/signed-writes.ts); the signature with another body is a 401. Registering a
 * namespace here also needs DNS proof (authority.ts); the owner registers through /v1/node/.
 * Schemas are the contract's (contract/core/namespaces.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  Address,
  AddressList,
  AddressParams,
  AddressRemoved,
  AssignAddressBody,
  ControllerQuery,
  AddressListQuery,
  DomainParams,
  Namespace,
  NamespaceList,
  RebindAddressBody,
  RegisterNamespaceBody,
  ReplacementList,
} from '../../../../contract/core/namespaces.ts';
import { verifySignedOperation } from '../../../auth/didkey.ts';
import { forbidden } from '../../../errors.ts';
import { identityIfGiven } from '../../../http/route-auth.ts';
import { claimSignedWrite, installSignedWriteAnswers } from '../../../http/signed-writes.ts';
import type { CoreServices } from '../services.ts';
import { requestDns } from './request-dns.ts';

type Operation = 'register' | 'register_address' | 'update_address' | 'reassign_address' | 'delete_address';

const tags = ['namespaces'];

export async function namespaceRoutes(app: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  const { ctx, namespaces } = services;
  const api = app.withTypeProvider<ZodTypeProvider>();

  installSignedWriteAnswers(app);

  /** The controller that signed this write; null when it is a repeat, answered already (return `reply`). */
  const signer = async (request: FastifyRequest, reply: FastifyReply, domain: string, operation: Operation, name?: string): Promise<string | null> => {
    const { didKey, signature } = verifySignedOperation(request, name === undefined ? { domain, operation } : { domain, name, operation }, {
      now: ctx.clock.now(),
    });
    return (await claimSignedWrite(request, reply, { replay: ctx.replay, clock: ctx.clock, key: `didkey:${signature}`, scheme: 'DIDKey' })) ? didKey : null;
  };

  api.post(
    '/v1/namespaces',
    {
      config: { auth: 'didkey' },
      schema: {
        tags,
        summary: 'Registers a namespace with DNS proof, signed by its controller (201; 200 when it already is)',
        body: RegisterNamespaceBody,
        response: { 200: Namespace, 201: Namespace },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const domain = body.domain;
      const controller = await signer(request, reply, domain, 'register');
      if (controller === null) return reply;
      if (body.controller_did !== undefined && body.controller_did !== controller) {
        throw forbidden('SVC_ERR_NAMESPACE_CONTROLLER_MISMATCH', 'controller_did must be the key that signed the request');
      }
      const { namespace, created } = await namespaces.registerByDnsProof(domain, controller, requestDns(ctx.dns, request));
      return reply.code(created ? 201 : 200).send(namespace);
    },
  );

  api.get(
    '/v1/namespaces',
    {
      config: { auth: 'public' },
      schema: { tags, summary: 'The namespaces a controller holds here', querystring: ControllerQuery, response: { 200: NamespaceList } },
    },
    async (request) => ({ namespaces: namespaces.listByController(request.query.controller_did) }),
  );

  api.get(
    '/v1/namespaces/:domain',
    { config: { auth: 'public' }, schema: { tags, summary: 'A namespace and its verification state', params: DomainParams, response: { 200: Namespace } } },
    async (request) => namespaces.get(request.params.domain),
  );

  api.post(
    '/v1/namespaces/:domain/verify',
    { config: { auth: 'public' }, schema: { tags, summary: "Re-reads the namespace's _svcid DNS record", params: DomainParams, response: { 200: Namespace } } },
    async (request) => namespaces.reverify(request.params.domain, requestDns(ctx.dns, request)),
  );

  api.get(
    '/v1/namespaces/:domain/addresses',
    {
      config: { auth: 'public' },
      schema: {
        tags,
        summary: "A namespace's addresses, by name; `names` asks for some only",
        params: DomainParams,
        querystring: AddressListQuery,
        response: { 200: AddressList },
      },
    },
    async (request) => ({ addresses: namespaces.listAddresses(request.params.domain, request.query.names) }),
  );

  // An identity that asks with its credentials is answered for an address on another node too
  // (identities/client-key-lookup.ts): its client seals mail for it.
  api.get(
    '/v1/namespaces/:domain/addresses/:name',
    {
      config: { auth: 'public', identityIfGiven: true },
      schema: {
        tags,
        summary: 'An address and the key it names; for an identity of this node, also an address on another node, as its node answers it',
        params: AddressParams,
        response: { 200: Address },
      },
    },
    async (request) => {
      const { domain, name } = request.params;
      return services.clientKeys.address(domain, name, identityIfGiven(request) !== null);
    },
  );

  // Address continuity after a replace: verifiable with the controller's key alone.
  api.get(
    '/v1/namespaces/:domain/addresses/:name/replacements',
    {
      config: { auth: 'public' },
      schema: {
        tags,
        summary: "The controller's replacement announcements for an address, oldest first",
        params: AddressParams,
        response: { 200: ReplacementList },
      },
    },
    async (request) => {
      const { domain, name } = request.params;
      return { replacement_announcements: namespaces.replacements(domain, name) };
    },
  );

  api.post(
    '/v1/namespaces/:domain/addresses',
    {
      config: { auth: 'didkey' },
      schema: {
        tags,
        summary: 'Assigns an address, signed by the controller (201; 200 when it already names that key)',
        params: DomainParams,
        body: AssignAddressBody,
        response: { 200: Address, 201: Address },
      },
    },
    async (request, reply) => {
      const { domain } = request.params;
      const body = request.body;
      const by = await signer(request, reply, domain, 'register_address', body.name);
      if (by === null) return reply;
      const { address, created } = namespaces.assignAddress(domain, body.name, by, body.did_key, body.did_aw);
      return reply.code(created ? 201 : 200).send(address);
    },
  );

  /** Rotate (`update_address`, PUT) and reassign: the same request, signed for a different operation. */
  const rebind =
    (operation: 'update_address' | 'reassign_address') =>
    async (
      request: FastifyRequest<{ Params: { domain: string; name: string }; Body: { did_key: string; did_aw?: string | undefined } }>,
      reply: FastifyReply,
    ) => {
      const { domain, name } = request.params;
      const by = await signer(request, reply, domain, operation, name);
      if (by === null) return reply;
      return namespaces.rebindAddress(domain, name, by, request.body.did_key, request.body.did_aw, operation);
    };

  api.put(
    '/v1/namespaces/:domain/addresses/:name',
    {
      config: { auth: 'didkey' },
      schema: {
        tags,
        summary: "Rotates an address's key, signed by the controller",
        params: AddressParams,
        body: RebindAddressBody,
        response: { 200: Address },
      },
    },
    rebind('update_address'),
  );

  api.post(
    '/v1/namespaces/:domain/addresses/:name/reassign',
    {
      config: { auth: 'didkey' },
      schema: {
        tags,
        summary: 'Points an address at another identity, signed by the controller',
        params: AddressParams,
        body: RebindAddressBody,
        response: { 200: Address },
      },
    },
    rebind('reassign_address'),
  );

  api.delete(
    '/v1/namespaces/:domain/addresses/:name',
    {
      config: { auth: 'didkey' },
      schema: { tags, summary: 'Removes an address, signed by the controller', params: AddressParams, response: { 200: AddressRemoved } },
    },
    async (request, reply) => {
      const { domain, name } = request.params;
      const by = await signer(request, reply, domain, 'delete_address', name);
      if (by === null) return reply;
      return namespaces.removeAddress(domain, name, by);
    },
  );
}
