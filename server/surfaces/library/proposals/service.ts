/**
 * Reviewable proposals (docs/adr/0006-library-and-document-surfaces.md): a changeset of profile
 * assets, checked when submitted (shape, collisions, bases) and checked again when approved, which
 * mints the next patch version. A stale base found at approval rejects the proposal: its bases can
 * never become current again.
 */
import { randomUUID } from 'node:crypto';
import type { ActingAs } from '../../../../contract/acting-as.ts';
import type { MintedVersion, Proposal, ProposalFilter, ProposalInput, ProposalStatus } from '../../../../contract/library/proposals.ts';
import { nextPatchVersion } from '../../../../contract/library-rules.ts';
import type { NodeContext } from '../../../context.ts';
import { conflict, notFound, ServiceError } from '../../../errors.ts';
import { applyChangeset, parseChangeset } from '../domain/changeset.ts';
import { decideProposal, findProposal, insertProposal, listProposals, proposalContent, toProposal, type ProposalRow } from './store.ts';
import { libraryChanged } from '../changes.ts';
import type { Shelf } from '../shelf/service.ts';

/** Who submits or decides: the member's team and alias, and the identity the app acted as (null for an agent's own request). */
export interface Reviewer {
  team_id: string;
  alias: string;
  acting_as: ActingAs | null;
}

export class Proposals {
  readonly #ctx: NodeContext;
  readonly #shelf: Shelf;

  constructor(ctx: NodeContext, shelf: Shelf) {
    this.#ctx = ctx;
    this.#shelf = shelf;
  }

  /** Stores a proposal only if its changeset would apply to the current version right now. */
  submit(author: Reviewer, body: ProposalInput): Proposal {
    const current = this.#shelf.entry(author.team_id, body.profile_ref);
    if (body.target === 'profile') {
      const changeset = parseChangeset(body.content);
      applyChangeset(current.files, changeset, { profileRef: body.profile_ref, version: nextPatchVersion(current.version.version) });
    }
    const proposal = insertProposal(this.#ctx.db, {
      proposal_id: randomUUID(),
      team_id: author.team_id,
      target: body.target,
      profile_ref: body.profile_ref,
      content: body.content,
      summary: body.summary ?? null,
      rationale: body.rationale ?? null,
      base_profile_version: current.version.version,
      created_by_alias: author.alias,
      created_by_acting_as: author.acting_as,
      created_at: this.#ctx.clock.now().toISOString(),
    });
    libraryChanged(this.#ctx, author.team_id);
    return proposal;
  }

  list(teamId: string, filter: ProposalFilter): Proposal[] {
    return listProposals(this.#ctx.db, teamId, filter).map(toProposal);
  }

  get(teamId: string, proposalId: string): Proposal {
    return toProposal(this.#row(teamId, proposalId));
  }

  /** Rechecks every base against the current version and mints the next patch version. */
  approve(reviewer: Reviewer, proposalId: string): Proposal {
    const { db } = this.#ctx;
    try {
      const approved = db.transaction(() => {
        const row = this.#open(reviewer.team_id, proposalId);
        let minted: MintedVersion | null = null;
        if (row.target === 'profile') {
          const current = this.#shelf.entry(reviewer.team_id, row.profile_ref);
          const version = nextPatchVersion(current.version.version);
          const files = applyChangeset(current.files, parseChangeset(proposalContent(row)), { profileRef: row.profile_ref, version });
          const next = this.#shelf.insertVersion(reviewer.team_id, row.profile_ref, files, 'proposal');
          minted = {
            profile_ref: row.profile_ref,
            version: next.version.version,
            digest: next.version.digest,
            supersedes_profile_version: current.version.version,
            supersedes_profile_digest: current.version.digest,
          };
        }
        this.#decide(row, 'approved', reviewer, null, minted);
        return toProposal(this.#row(reviewer.team_id, proposalId));
      })();
      libraryChanged(this.#ctx, reviewer.team_id);
      return approved;
    } catch (error) {
      if (error instanceof ServiceError && error.statusCode === 409 && this.#row(reviewer.team_id, proposalId).status === 'open') {
        this.#decide(this.#row(reviewer.team_id, proposalId), 'rejected', reviewer, `Rejected by the approval recheck: ${error.message}`, null);
        // The answer is a refusal, yet the rejection is written: the team hears of it.
        libraryChanged(this.#ctx, reviewer.team_id);
        throw conflict('SVC_ERR_PROPOSAL_RECHECK_REJECTED', `${error.message}. The approval recheck rejected proposal ${proposalId}; nothing was minted`);
      }
      throw error;
    }
  }

  reject(reviewer: Reviewer, proposalId: string): Proposal {
    const row = this.#open(reviewer.team_id, proposalId);
    this.#decide(row, 'rejected', reviewer, null, null);
    libraryChanged(this.#ctx, reviewer.team_id);
    return toProposal(this.#row(reviewer.team_id, proposalId));
  }

  #decide(row: ProposalRow, status: Exclude<ProposalStatus, 'open'>, reviewer: Reviewer, reason: string | null, minted: MintedVersion | null): void {
    decideProposal(this.#ctx.db, row.proposal_id, {
      status,
      decided_by_alias: reviewer.alias,
      decided_by_acting_as: reviewer.acting_as,
      decided_at: this.#ctx.clock.now().toISOString(),
      decision_reason: reason,
      minted,
    });
  }

  #open(teamId: string, proposalId: string): ProposalRow {
    const row = this.#row(teamId, proposalId);
    if (row.status !== 'open') throw conflict('SVC_ERR_PROPOSAL_DECIDED', `Proposal ${proposalId} is already ${row.status}`);
    return row;
  }

  #row(teamId: string, proposalId: string): ProposalRow {
    const row = findProposal(this.#ctx.db, teamId, proposalId);
    if (!row) throw notFound('SVC_ERR_PROPOSAL_NOT_FOUND', `No proposal ${proposalId}`);
    return row;
  }
}
