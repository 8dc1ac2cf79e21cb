/**
 * Proposals: submit a changeset for review, list them, approve (mints the next patch version) or
 * reject. The author's and reviewer's alias comes from the certificate, for the audit trail, and,
 * when the app signed as the owner member, the identity it acted as (teams/acting-as.ts). Schemas
 * and auth are declared; the contract (contract/library/proposals.ts) is the one definition.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { Proposal, ProposalBody, ProposalList, ProposalParams, ProposalQuery } from '../../../../contract/library/proposals.ts';
import { memberOf, teamRoute } from '../../../http/route-scope.ts';
import { actingAsOf } from '../../../teams/acting-as.ts';
import type { Reviewer } from './service.ts';
import { type LibraryRouteOptions } from '../route-options.ts';

const tags = ['proposals'];

export async function proposalRoutes(app: FastifyInstance, { services }: LibraryRouteOptions): Promise<void> {
  const { proposals } = services;
  const api = app.withTypeProvider<ZodTypeProvider>();
  /** The member, and the identity the app acts as when the owner member signed. */
  const reviewerOf = (request: FastifyRequest): Reviewer => {
    const member = memberOf(request);
    return { team_id: member.team_id, alias: member.alias, acting_as: actingAsOf(request, member, services.ownerCertificateOf) };
  };

  api.post(
    '/v1/proposals',
    {
      config: teamRoute('library:write'),
      schema: {
        tags,
        summary: 'Submits a proposal; a profile changeset must apply to the current version now',
        body: ProposalBody,
        response: { 201: Proposal },
      },
    },
    async (request, reply) => reply.code(201).send(proposals.submit(reviewerOf(request), request.body)),
  );

  api.get(
    '/v1/proposals',
    {
      config: teamRoute('library:read'),
      schema: { tags, summary: "The team's proposals, newest first", querystring: ProposalQuery, response: { 200: ProposalList } },
    },
    async (request) => proposals.list(memberOf(request).team_id, request.query),
  );

  api.get(
    '/v1/proposals/:proposal_id',
    { config: teamRoute('library:read'), schema: { tags, summary: 'One proposal', params: ProposalParams, response: { 200: Proposal } } },
    async (request) => proposals.get(memberOf(request).team_id, request.params.proposal_id),
  );

  // A body, if any, is ignored: the decision is the whole request.
  api.post(
    '/v1/proposals/:proposal_id/approve',
    {
      config: teamRoute('library:approve'),
      schema: {
        tags,
        summary: 'Approves an open proposal: rechecks its bases and mints the next patch version (409 and rejected when stale)',
        params: ProposalParams,
        response: { 200: Proposal },
      },
    },
    async (request) => proposals.approve(reviewerOf(request), request.params.proposal_id),
  );

  api.post(
    '/v1/proposals/:proposal_id/reject',
    { config: teamRoute('library:approve'), schema: { tags, summary: 'Rejects an open proposal', params: ProposalParams, response: { 200: Proposal } } },
    async (request) => proposals.reject(reviewerOf(request), request.params.proposal_id),
  );
}
