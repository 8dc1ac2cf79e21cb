/**
 * Reviewable proposals (research A7, C1): a changeset of profile assets, checked when submitted
 * (shape, collisions, bases) and checked again when approved, which mints the next patch version.
 * A stale base found at approval rejects the proposal: its bases can never become current again.
 */
import { randomUUID } from 'node:crypto';
import type { MintedVersion, Proposal, ProposalFilter, ProposalInput, ProposalStatus, ProposalTarget } from '../../../contract/library/proposals.ts';
import type { NodeContext } from '../../context.ts';
import { conflict, notFound, ServiceError } from '../../errors.ts';
import { applyChangeset, parseChangeset } from './domain/changeset.ts';
import { nextPatchVersion } from '../../../contract/library-rules.ts';
import { fromJson, toJson } from './records.ts';
import type { Shelf } from './shelf.ts';

interface ProposalRow {
  proposal_id: string;
  team_id: string;
  target: ProposalTarget;
  profile_ref: string;
  status: ProposalStatus;
  content: string;
  summary: string | null;
  rationale: string | null;
  base_profile_version: string | null;
  created_by_alias: string;
  created_at: string;
  decided_by_alias: string | null;
  decided_at: string | null;
  decision_reason: string | null;
  minted: string | null;
}

function recordOf(row: ProposalRow): Proposal {
  const { team_id: _team, content, minted, ...rest } = row;
  return { ...rest, content: fromJson(content), ...(minted === null ? {} : { minted: JSON.parse(minted) as MintedVersion }) };
}

export interface Reviewer {
  team_id: string;
  alias: string;
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
    const row: ProposalRow = {
      proposal_id: randomUUID(),
      team_id: author.team_id,
      target: body.target,
      profile_ref: body.profile_ref,
      status: 'open',
      content: toJson(body.content),
      summary: body.summary ?? null,
      rationale: body.rationale ?? null,
      base_profile_version: current.version.version,
      created_by_alias: author.alias,
      created_at: this.#ctx.clock.now().toISOString(),
      decided_by_alias: null,
      decided_at: null,
      decision_reason: null,
      minted: null,
    };
    this.#ctx.db
      .prepare(
        `INSERT INTO proposals (proposal_id, team_id, target, profile_ref, status, content, summary, rationale, base_profile_version,
           created_by_alias, created_at)
         VALUES (@proposal_id, @team_id, @target, @profile_ref, @status, @content, @summary, @rationale, @base_profile_version,
           @created_by_alias, @created_at)`,
      )
      .run(row);
    return recordOf(row);
  }

  list(teamId: string, filter: ProposalFilter): Proposal[] {
    const rows = this.#ctx.db
      .prepare(
        `SELECT * FROM proposals WHERE team_id = ? AND (? IS NULL OR status = ?) AND (? IS NULL OR profile_ref = ?)
         ORDER BY created_at DESC, rowid DESC`,
      )
      .all(teamId, filter.status ?? null, filter.status ?? null, filter.profile_ref ?? null, filter.profile_ref ?? null) as ProposalRow[];
    return rows.map(recordOf);
  }

  get(teamId: string, proposalId: string): Proposal {
    return recordOf(this.#row(teamId, proposalId));
  }

  /** Rechecks every base against the current version and mints the next patch version. */
  approve(reviewer: Reviewer, proposalId: string): Proposal {
    const { db } = this.#ctx;
    try {
      return db.transaction(() => {
        const row = this.#open(reviewer.team_id, proposalId);
        let minted: MintedVersion | null = null;
        if (row.target === 'profile') {
          const current = this.#shelf.entry(reviewer.team_id, row.profile_ref);
          const version = nextPatchVersion(current.version.version);
          const files = applyChangeset(current.files, parseChangeset(fromJson(row.content)), { profileRef: row.profile_ref, version });
          const next = this.#shelf.insertVersion(reviewer.team_id, row.profile_ref, files, 'proposal');
          minted = {
            profile_ref: row.profile_ref,
            version: next.version.version,
            digest: next.version.digest,
            supersedes_profile_version: current.version.version,
            supersedes_profile_digest: current.version.digest,
          };
        }
        this.#decide(row, 'approved', reviewer.alias, null, minted);
        return recordOf(this.#row(reviewer.team_id, proposalId));
      })();
    } catch (error) {
      if (error instanceof ServiceError && error.statusCode === 409 && this.#row(reviewer.team_id, proposalId).status === 'open') {
        this.#decide(this.#row(reviewer.team_id, proposalId), 'rejected', reviewer.alias, `Rejected by the approval recheck: ${error.message}`, null);
        throw conflict(`${error.message}. The approval recheck rejected proposal ${proposalId}; nothing was minted`);
      }
      throw error;
    }
  }

  reject(reviewer: Reviewer, proposalId: string): Proposal {
    const row = this.#open(reviewer.team_id, proposalId);
    this.#decide(row, 'rejected', reviewer.alias, null, null);
    return recordOf(this.#row(reviewer.team_id, proposalId));
  }

  #decide(row: ProposalRow, status: Exclude<ProposalStatus, 'open'>, alias: string, reason: string | null, minted: MintedVersion | null): void {
    this.#ctx.db
      .prepare(
        `UPDATE proposals SET status = ?, decided_by_alias = ?, decided_at = ?, decision_reason = ?, minted = ? WHERE proposal_id = ?`,
      )
      .run(status, alias, this.#ctx.clock.now().toISOString(), reason, minted === null ? null : toJson(minted), row.proposal_id);
  }

  #open(teamId: string, proposalId: string): ProposalRow {
    const row = this.#row(teamId, proposalId);
    if (row.status !== 'open') throw conflict(`Proposal ${proposalId} is already ${row.status}`);
    return row;
  }

  #row(teamId: string, proposalId: string): ProposalRow {
    const row = this.#ctx.db.prepare(`SELECT * FROM proposals WHERE proposal_id = ? AND team_id = ?`).get(proposalId, teamId) as ProposalRow | undefined;
    if (!row) throw notFound(`No proposal ${proposalId}`);
    return row;
  }
}
