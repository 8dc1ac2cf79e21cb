/**
 * The `proposals` table: a team's reviewable proposals, open until decided once. Content (the
 * changeset, or whatever another target proposes) and the minted version are JSON columns. Who
 * submitted and who decided are the certificate's alias and, when the app signed as the owner
 * member, the identity it acted as (migration 0036).
 */
import type { ActingAs } from '../../../../contract/acting-as.ts';
import type { MintedVersion, Proposal, ProposalFilter, ProposalStatus, ProposalTarget } from '../../../../contract/library/proposals.ts';
import type { Db } from '../../../context.ts';
import type { JsonValue } from '../../../crypto/canonical-json.ts';
import { actingAsColumns, actingAsOfColumns } from '../../../teams/acting-as-columns.ts';
import { fromJson, toJson } from '../domain/json-columns.ts';

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
  /** The identity the app acted as when it submitted; all null otherwise. */
  acting_as_agent_id: string | null;
  acting_as_alias: string | null;
  acting_as_name: string | null;
  acting_as_address: string | null;
  /** The identity the app acted as when it decided; all null otherwise. */
  decided_acting_as_agent_id: string | null;
  decided_acting_as_alias: string | null;
  decided_acting_as_name: string | null;
  decided_acting_as_address: string | null;
}

/** The columns that hold who submitted or decided, as one identity. */
type ActingAsColumns = 'acting_as_agent_id' | 'acting_as_alias' | 'acting_as_name' | 'acting_as_address';
type DecidedActingAsColumns = `decided_${ActingAsColumns}`;

/** What a submission stores; the proposal starts open and undecided. */
export interface NewProposal extends Omit<
  ProposalRow,
  'status' | 'content' | 'decided_by_alias' | 'decided_at' | 'decision_reason' | 'minted' | ActingAsColumns | DecidedActingAsColumns
> {
  /** As the request body had it; stored as JSON and read back decoded. */
  content: unknown;
  /** The identity the app acted as, when the owner member signed for it; else null. */
  created_by_acting_as: ActingAs | null;
}

export interface ProposalDecision {
  status: Exclude<ProposalStatus, 'open'>;
  decided_by_alias: string;
  /** The identity the app acted as, when the owner member signed for it; else null. */
  decided_by_acting_as: ActingAs | null;
  decided_at: string;
  decision_reason: string | null;
  minted: MintedVersion | null;
}

/** Stores a new open proposal and returns it as read back. */
export function insertProposal(db: Db, proposal: NewProposal): Proposal {
  const { created_by_acting_as: actingAs, ...fields } = proposal;
  const [agentId, alias, name, address] = actingAsColumns(actingAs);
  const row: ProposalRow = {
    ...fields,
    status: 'open',
    content: toJson(proposal.content),
    decided_by_alias: null,
    decided_at: null,
    decision_reason: null,
    minted: null,
    acting_as_agent_id: agentId,
    acting_as_alias: alias,
    acting_as_name: name,
    acting_as_address: address,
    decided_acting_as_agent_id: null,
    decided_acting_as_alias: null,
    decided_acting_as_name: null,
    decided_acting_as_address: null,
  };
  db.prepare(
    `INSERT INTO proposals (proposal_id, team_id, target, profile_ref, status, content, summary, rationale, base_profile_version,
       created_by_alias, created_at, acting_as_agent_id, acting_as_alias, acting_as_name, acting_as_address)
     VALUES (@proposal_id, @team_id, @target, @profile_ref, @status, @content, @summary, @rationale, @base_profile_version,
       @created_by_alias, @created_at, @acting_as_agent_id, @acting_as_alias, @acting_as_name, @acting_as_address)`,
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
  db.prepare(
    `UPDATE proposals SET status = ?, decided_by_alias = ?, decided_at = ?, decision_reason = ?, minted = ?,
       decided_acting_as_agent_id = ?, decided_acting_as_alias = ?, decided_acting_as_name = ?, decided_acting_as_address = ?
     WHERE proposal_id = ?`,
  ).run(
    decision.status,
    decision.decided_by_alias,
    decision.decided_at,
    decision.decision_reason,
    decision.minted === null ? null : toJson(decision.minted),
    ...actingAsColumns(decision.decided_by_acting_as),
    proposalId,
  );
}

export const proposalContent = (row: ProposalRow): JsonValue => fromJson(row.content);

/** The wire record: no team id, content decoded, who acted as one identity each, `minted` only once a version was minted. */
export function toProposal(row: ProposalRow): Proposal {
  return {
    proposal_id: row.proposal_id,
    target: row.target,
    profile_ref: row.profile_ref,
    status: row.status,
    content: fromJson(row.content),
    summary: row.summary,
    rationale: row.rationale,
    base_profile_version: row.base_profile_version,
    created_by_alias: row.created_by_alias,
    created_by_acting_as: actingAsOfColumns(row.acting_as_agent_id, row.acting_as_alias, row.acting_as_name, row.acting_as_address),
    created_at: row.created_at,
    decided_by_alias: row.decided_by_alias,
    decided_by_acting_as: actingAsOfColumns(
      row.decided_acting_as_agent_id,
      row.decided_acting_as_alias,
      row.decided_acting_as_name,
      row.decided_acting_as_address,
    ),
    decided_at: row.decided_at,
    decision_reason: row.decision_reason,
    ...(row.minted === null ? {} : { minted: fromJson<MintedVersion>(row.minted) }),
  };
}
