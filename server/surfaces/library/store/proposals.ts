/**
 * The `proposals` table: a team's reviewable proposals, open until decided once. Content (the
 * changeset, or whatever another target proposes) and the minted version are JSON columns.
 */
import type { MintedVersion, Proposal, ProposalFilter, ProposalStatus, ProposalTarget } from '../../../../contract/library/proposals.ts';
import type { Db } from '../../../context.ts';
import type { JsonValue } from '../../../crypto/canonical-json.ts';
import { fromJson, toJson } from './json-columns.ts';

export interface ProposalRow {
  proposal_id: string;
  team_id: string;
  target: ProposalTarget;
  profile_ref: string;
  status: ProposalStatus;
  /** JSON. */
  content: string;
  summary: string | null;
  rationale: string | null;
  base_profile_version: string | null;
  created_by_alias: string;
  created_at: string;
  decided_by_alias: string | null;
  decided_at: string | null;
  decision_reason: string | null;
  /** JSON MintedVersion, set when an approval minted one. */
  minted: string | null;
}

/** What a submission stores; the proposal starts open and undecided. */
export interface NewProposal extends Omit<ProposalRow, 'status' | 'content' | 'decided_by_alias' | 'decided_at' | 'decision_reason' | 'minted'> {
  /** As the request body had it; stored as JSON and read back decoded. */
  content: unknown;
}

export interface ProposalDecision {
  status: Exclude<ProposalStatus, 'open'>;
  decided_by_alias: string;
  decided_at: string;
  decision_reason: string | null;
  minted: MintedVersion | null;
}

/** Stores a new open proposal and returns it as read back. */
export function insertProposal(db: Db, proposal: NewProposal): Proposal {
  const row: ProposalRow = {
    ...proposal,
    status: 'open',
    content: toJson(proposal.content),
    decided_by_alias: null,
    decided_at: null,
    decision_reason: null,
    minted: null,
  };
  db.prepare(
    `INSERT INTO proposals (proposal_id, team_id, target, profile_ref, status, content, summary, rationale, base_profile_version,
       created_by_alias, created_at)
     VALUES (@proposal_id, @team_id, @target, @profile_ref, @status, @content, @summary, @rationale, @base_profile_version,
       @created_by_alias, @created_at)`,
  ).run(row);
  return toProposal(row);
}

/** The team's proposals, newest first, narrowed by status and profile when given. */
export function listProposals(db: Db, teamId: string, filter: ProposalFilter): ProposalRow[] {
  const status = filter.status ?? null;
  const profileRef = filter.profile_ref ?? null;
  return db
    .prepare(
      `SELECT * FROM proposals WHERE team_id = ? AND (? IS NULL OR status = ?) AND (? IS NULL OR profile_ref = ?)
       ORDER BY created_at DESC, rowid DESC`,
    )
    .all(teamId, status, status, profileRef, profileRef) as ProposalRow[];
}

export function findProposal(db: Db, teamId: string, proposalId: string): ProposalRow | undefined {
  return db.prepare(`SELECT * FROM proposals WHERE proposal_id = ? AND team_id = ?`).get(proposalId, teamId) as ProposalRow | undefined;
}

export function decideProposal(db: Db, proposalId: string, decision: ProposalDecision): void {
  db.prepare(`UPDATE proposals SET status = ?, decided_by_alias = ?, decided_at = ?, decision_reason = ?, minted = ? WHERE proposal_id = ?`).run(
    decision.status,
    decision.decided_by_alias,
    decision.decided_at,
    decision.decision_reason,
    decision.minted === null ? null : toJson(decision.minted),
    proposalId,
  );
}

export const proposalContent = (row: ProposalRow): JsonValue => fromJson(row.content);

/** The wire record: no team id, content decoded, `minted` only once a version was minted. */
export function toProposal(row: ProposalRow): Proposal {
  const { team_id: _team, content, minted, ...rest } = row;
  return { ...rest, content: fromJson(content), ...(minted === null ? {} : { minted: fromJson<MintedVersion>(minted) }) };
}
