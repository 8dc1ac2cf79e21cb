/**
 * The `profile_bindings` table: one binding per (team, agent) to an exact shelf version, digest
 * included. Deleting the profile deletes its bindings (foreign-key cascade).
 */
import type { Binding } from '../../../../contract/library/bindings.ts';
import type { Db } from '../../../context.ts';

export interface BindingRow {
  team_id: string;
  agent_id: string;
  profile_ref: string;
  profile_version: string;
  profile_digest: string;
  source_blueprint_ref: string | null;
  bound_at: string;
}

/** Inserts the agent's binding, or replaces the one it had. */
export function upsertBinding(db: Db, row: BindingRow): void {
  db.prepare(
    `INSERT INTO profile_bindings (team_id, agent_id, profile_ref, profile_version, profile_digest, source_blueprint_ref, bound_at)
     VALUES (@team_id, @agent_id, @profile_ref, @profile_version, @profile_digest, @source_blueprint_ref, @bound_at)
     ON CONFLICT (team_id, agent_id) DO UPDATE SET profile_ref = excluded.profile_ref, profile_version = excluded.profile_version,
       profile_digest = excluded.profile_digest, source_blueprint_ref = excluded.source_blueprint_ref, bound_at = excluded.bound_at`,
  ).run(row);
}

export function findBinding(db: Db, teamId: string, agentId: string): BindingRow | undefined {
  return db.prepare(`SELECT * FROM profile_bindings WHERE team_id = ? AND agent_id = ?`).get(teamId, agentId) as BindingRow | undefined;
}

/** Every binding of the team, by agent_id. */
export function listBindings(db: Db, teamId: string): BindingRow[] {
  return db.prepare(`SELECT * FROM profile_bindings WHERE team_id = ? ORDER BY agent_id`).all(teamId) as BindingRow[];
}

/** The wire record: the row without its team id. */
export function toBinding(row: BindingRow): Binding {
  return {
    agent_id: row.agent_id,
    profile_ref: row.profile_ref,
    profile_version: row.profile_version,
    profile_digest: row.profile_digest,
    source_blueprint_ref: row.source_blueprint_ref,
    bound_at: row.bound_at,
  };
}
