/**
 * Proposals: submit a changeset for review, list them, approve (mints the next patch version) or
 * reject. The reviewer's alias comes from the certificate, for the audit trail.
 */
import type { FastifyInstance } from 'fastify';
import { parseWith } from '../../../http/validate.ts';
import { ProposalBody, ProposalParams, ProposalQuery } from '../schemas.ts';
import { memberOf, type LibraryRouteOptions } from './options.ts';

export async function proposalRoutes(app: FastifyInstance, { services }: LibraryRouteOptions): Promise<void> {
  const { proposals } = services;
  const idOf = (params: unknown): string => parseWith(ProposalParams, params, 'path').proposal_id;

  app.post('/v1/proposals', async (request, reply) =>
    reply.code(201).send(proposals.submit(memberOf(request), parseWith(ProposalBody, request.body))),
  );

  app.get('/v1/proposals', async (request) =>
    proposals.list(memberOf(request).team_id, parseWith(ProposalQuery, request.query, 'query')),
  );

  app.get('/v1/proposals/:proposal_id', async (request) => proposals.get(memberOf(request).team_id, idOf(request.params)));

  // A body, if any, is ignored: the decision is the whole request.
  app.post('/v1/proposals/:proposal_id/approve', async (request) => proposals.approve(memberOf(request), idOf(request.params)));

  app.post('/v1/proposals/:proposal_id/reject', async (request) => proposals.reject(memberOf(request), idOf(request.params)));
}
