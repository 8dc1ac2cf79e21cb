/**
 * Messaging's questions to tables other aggregates own, asked by something other than a row id
 * (lookups by id go through those aggregates' stores): which live identity a recipient selector
 * names (`agents`), and whether a contact entry admits a sender (`contacts`).
 */
import type { Db } from '../../../../context.ts';
import type { AgentRow } from '../../identities/store/agents.ts';

/** The newest identity matching `where` that is not deleted (an alias or key may have been reused). */
function newestLive(db: Db, where: string, ...params: string[]): AgentRow | undefined {
  return db.prepare(`SELECT * FROM agents WHERE ${where} AND status <> 'deleted' ORDER BY created_at DESC LIMIT 1`).get(...params) as AgentRow | undefined;
}

export const liveIdentityByAlias = (db: Db, projectId: string, alias: string) => newestLive(db, 'project_id = ? AND alias = ?', projectId, alias);

export const liveIdentityByDidKey = (db: Db, didKey: string) => newestLive(db, 'did_key = ?', didKey);

export const liveIdentityByStableId = (db: Db, stableId: string) => newestLive(db, 'did_aw = ?', stableId);

export const liveIdentityById = (db: Db, agentId: string) => newestLive(db, 'agent_id = ?', agentId);

/** `<project>~<alias>`: the identity with this alias in the project with this slug. */
export const liveIdentityByProjectAlias = (db: Db, slug: string, alias: string) =>
  newestLive(db, 'project_id = (SELECT project_id FROM projects WHERE slug = ?) AND alias = ?', slug, alias);

/** The slug of an identity's project. */
export function projectSlugOfIdentity(db: Db, agentId: string): string | undefined {
  return db.prepare(`SELECT p.slug FROM agents a JOIN projects p ON p.project_id = a.project_id WHERE a.agent_id = ?`).pluck().get(agentId) as
    string | undefined;
}

/** Whether one of `owner`'s contact entries is one of `keys` (a did, stable id, address or domain). */
export function hasContactAmong(db: Db, ownerAgentId: string, keys: readonly string[]): boolean {
  return (
    db
      .prepare(`SELECT 1 FROM contacts WHERE owner_agent_id = ? AND contact_address IN (${keys.map(() => '?').join(', ')}) LIMIT 1`)
      .get(ownerAgentId, ...keys) !== undefined
  );
}
