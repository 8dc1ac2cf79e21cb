/**
 * did:svc registry routes: public reads, plus registration and rotation for self-custodial
 * clients who sign their own log entries (upstream awid's POST /v1/did and PUT /v1/did/{did_aw}).
 * Those two are `public` as far as headers go: the signature is in the body (the entry's proof),
 * and the registry checks it before anything is stored. Schemas are the contract's
 * (contract/core/did.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { DidHead, DidKey, DidLog, DidParams, DidRegistered, DidUpdated, RegisterDidBody, RotateDidBody } from '../../../../contract/core/did.ts';
import { isStableId, DID_METHOD } from '../../../crypto/stable-id.ts';
import { notFound } from '../../../errors.ts';
import { identityIfGiven } from '../../../http/route-auth.ts';
import type { CoreServices } from '../services.ts';

const tags = ['did'];

/** A did:svc from the path; one that cannot exist is simply not found. */
function didParam({ did_aw }: { did_aw: string }): string {
  if (!isStableId(did_aw, DID_METHOD)) throw notFound('SVC_ERR_DID_NOT_FOUND', 'did:svc not found');
  return did_aw;
}

export async function didRoutes(app: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  const registry = services.did;
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.post(
    '/v1/did',
    {
      config: { auth: 'public' },
      schema: {
        tags,
        summary: 'Registers a did:svc from its client-signed genesis entry; idempotent',
        body: RegisterDidBody,
        response: { 200: DidRegistered },
      },
    },
    async (request) => {
      const { proof, ...payload } = request.body;
      return registry.register(payload, proof);
    },
  );

  api.put(
    '/v1/did/:did_aw',
    {
      config: { auth: 'public' },
      schema: { tags, summary: 'Appends a rotate_key entry signed by the retiring key', params: DidParams, body: RotateDidBody, response: { 200: DidUpdated } },
    },
    async (request) => {
      const didAw = didParam(request.params);
      const { signature, ...body } = request.body;
      const head = registry.key(didAw).log_head;
      registry.rotate({ ...body, did_aw: didAw, previous_did_key: body.previous_did_key ?? head.new_did_key }, signature);
      // A self-custodial identity of this node follows its log to the new key.
      services.identities.followDidRotation(didAw, body.new_did_key);
      return { updated: true as const, did_aw: didAw, current_did_key: body.new_did_key };
    },
  );

  // For an identity that asks with its credentials, also another node's did:svc once its address
  // was looked up here (identities/client-key-lookup.ts).
  api.get(
    '/v1/did/:did_aw/key',
    {
      config: { auth: 'public', identityIfGiven: true },
      schema: {
        tags,
        summary: "A did:svc's current did:key, log head and encryption key; for an identity of this node, also another node's address's",
        params: DidParams,
        response: { 200: DidKey },
      },
    },
    async (request) => services.clientKeys.didKey(didParam(request.params), identityIfGiven(request) !== null),
  );

  api.get(
    '/v1/did/:did_aw/head',
    { config: { auth: 'public' }, schema: { tags, summary: "A did:svc's log head, without its signature", params: DidParams, response: { 200: DidHead } } },
    async (request) => {
      const { did_aw, current_did_key, log_head } = registry.key(didParam(request.params));
      return { did_aw, current_did_key, seq: log_head.seq, entry_hash: log_head.entry_hash, state_hash: log_head.state_hash, timestamp: log_head.timestamp };
    },
  );

  api.get(
    '/v1/did/:did_aw/log',
    { config: { auth: 'public' }, schema: { tags, summary: "A did:svc's whole log, oldest first", params: DidParams, response: { 200: DidLog } } },
    async (request) => registry.log(didParam(request.params)),
  );
}
