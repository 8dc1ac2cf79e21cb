/**
 * did:svc registry routes: public reads, plus registration and rotation for self-custodial
 * clients who sign their own log entries (upstream awid's POST /v1/did and PUT /v1/did/{did_aw}).
 */
import type { FastifyInstance } from 'fastify';
import { isStableId, DID_METHOD } from '../../../crypto/stable-id.ts';
import { notFound } from '../../../errors.ts';
import { parseWith } from '../../../http/validate.ts';
import type { CoreServices } from '../services.ts';
import { DidParams, RegisterDidBody, RotateDidBody } from './schemas.ts';

function didParam(params: unknown): string {
  const { did_aw } = parseWith(DidParams, params, 'path');
  if (!isStableId(did_aw, DID_METHOD)) throw notFound('did:svc not found');
  return did_aw;
}

export async function didRoutes(app: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  const registry = services.did;

  app.post('/v1/did', async (request) => {
    const { proof, ...payload } = parseWith(RegisterDidBody, request.body);
    return registry.register(payload, proof);
  });

  app.put('/v1/did/:did_aw', async (request) => {
    const didAw = didParam(request.params);
    const { signature, ...body } = parseWith(RotateDidBody, request.body);
    const head = registry.key(didAw).log_head;
    registry.rotate({ ...body, did_aw: didAw, previous_did_key: body.previous_did_key ?? head.new_did_key }, signature);
    return { updated: true, did_aw: didAw, current_did_key: body.new_did_key };
  });

  app.get('/v1/did/:did_aw/key', async (request) => registry.key(didParam(request.params)));

  app.get('/v1/did/:did_aw/head', async (request) => {
    const { did_aw, current_did_key, log_head } = registry.key(didParam(request.params));
    return { did_aw, current_did_key, seq: log_head.seq, entry_hash: log_head.entry_hash, state_hash: log_head.state_hash, timestamp: log_head.timestamp };
  });

  app.get('/v1/did/:did_aw/log', async (request) => registry.log(didParam(request.params)));
}
