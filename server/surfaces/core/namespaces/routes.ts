/**
 * Namespace and address routes (spec §4.1). Reads are public; every write carries a DIDKey
 * signature by the namespace controller over `{domain, name, operation, timestamp}`. Registering
 * a namespace here also needs DNS proof (authority.ts); the owner registers through /v1/node/.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { verifySignedOperation } from '../../../auth/didkey.ts';
import { normalizeDomain } from '../../../crypto/dns-txt.ts';
import { forbidden, invalid, notFound } from '../../../errors.ts';
import { parseWith } from '../../../http/validate.ts';
import type { CoreServices } from '../services.ts';
import { AddressParams, AssignAddressBody, ControllerQuery, DomainParams, RebindAddressBody, RegisterNamespaceBody } from './schemas.ts';

type Operation = 'register' | 'register_address' | 'update_address' | 'reassign_address' | 'delete_address';

export async function namespaceRoutes(app: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  const { ctx, namespaces } = services;

  const signer = (request: FastifyRequest, domain: string, operation: Operation, name?: string): string =>
    verifySignedOperation(request, name === undefined ? { domain, operation } : { domain, name, operation }, {
      now: ctx.clock.now(),
      replay: ctx.replay,
    });

  /** A domain from the path; one that cannot exist is simply not found. */
  const domainParam = (params: unknown): string => {
    const domain = normalizeDomain(parseWith(DomainParams, params, 'path').domain);
    if (domain === null) throw notFound('Namespace not found');
    return domain;
  };

  const addressParams = (params: unknown): { domain: string; name: string } => {
    const { name } = parseWith(AddressParams, params, 'path');
    return { domain: domainParam(params), name };
  };

  app.post('/v1/namespaces', async (request, reply) => {
    const body = parseWith(RegisterNamespaceBody, request.body);
    const domain = normalizeDomain(body.domain);
    if (domain === null) throw invalid([{ loc: ['body', 'domain'], msg: 'not a valid domain name', type: 'value_error' }]);
    const controller = signer(request, domain, 'register');
    if (body.controller_did !== undefined && body.controller_did !== controller) {
      throw forbidden('controller_did must be the key that signed the request');
    }
    const { namespace, created } = await namespaces.registerByDnsProof(domain, controller);
    return reply.code(created ? 201 : 200).send(namespace);
  });

  app.get('/v1/namespaces', async (request) => {
    const { controller_did } = parseWith(ControllerQuery, request.query, 'query');
    return { namespaces: namespaces.listByController(controller_did) };
  });

  app.get('/v1/namespaces/:domain', async (request) => namespaces.get(domainParam(request.params)));

  app.post('/v1/namespaces/:domain/verify', async (request) => namespaces.reverify(domainParam(request.params)));

  app.get('/v1/namespaces/:domain/addresses', async (request) => ({
    addresses: namespaces.listAddresses(domainParam(request.params)),
  }));

  app.get('/v1/namespaces/:domain/addresses/:name', async (request) => {
    const { domain, name } = addressParams(request.params);
    return namespaces.getAddress(domain, name);
  });

  // Address continuity after a replace: verifiable with the controller's key alone.
  app.get('/v1/namespaces/:domain/addresses/:name/replacements', async (request) => {
    const { domain, name } = addressParams(request.params);
    return { replacement_announcements: namespaces.replacements(domain, name) };
  });

  app.post('/v1/namespaces/:domain/addresses', async (request, reply) => {
    const domain = domainParam(request.params);
    const body = parseWith(AssignAddressBody, request.body);
    const by = signer(request, domain, 'register_address', body.name);
    const { address, created } = namespaces.assignAddress(domain, body.name, by, body.did_key, body.did_aw);
    return reply.code(created ? 201 : 200).send(address);
  });

  app.put('/v1/namespaces/:domain/addresses/:name', async (request) => {
    const { domain, name } = addressParams(request.params);
    const body = parseWith(RebindAddressBody, request.body);
    const by = signer(request, domain, 'update_address', name);
    return namespaces.rebindAddress(domain, name, by, body.did_key, body.did_aw, 'update_address');
  });

  app.post('/v1/namespaces/:domain/addresses/:name/reassign', async (request) => {
    const { domain, name } = addressParams(request.params);
    const body = parseWith(RebindAddressBody, request.body);
    const by = signer(request, domain, 'reassign_address', name);
    return namespaces.rebindAddress(domain, name, by, body.did_key, body.did_aw, 'reassign_address');
  });

  app.delete('/v1/namespaces/:domain/addresses/:name', async (request) => {
    const { domain, name } = addressParams(request.params);
    const by = signer(request, domain, 'delete_address', name);
    return namespaces.removeAddress(domain, name, by);
  });
}
