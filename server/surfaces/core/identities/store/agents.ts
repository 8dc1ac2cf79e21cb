/**
 * The `agents` table (every identity this node hosts, one row each) and the rotation
 * announcements its persistent identities sign. The only module that reads or writes them
 * directly; other stores may join `agents` in their own queries.
 */
import type { Custody, IdentityStatus, Lifetime, Reachability } from '../../../../../contract/core/identities.ts';
import type { Db } from '../../../../context.ts';

export interface AgentRow {
  agent_id: string;
  project_id: string;
  alias: string;
  name: string | null;
  lifetime: Lifetime;
  status: IdentityStatus;
  /** `self`: the client holds the key, and key_id is '' (nothing in custody). */
  custody: Custody;
  /** The key in custody; '' for a self-custodial identity. */
  key_id: string;
  did_key: string;
  did_aw: string | null;
  address_reachability: Reachability;
  /** 1: takes plaintext mail from senders that do not encrypt end to end (the default); 0: refuses it. */
  accepts_plaintext: 0 | 1;
  human_name: string;
  role: string | null;
  program: string | null;
  /** JSON of an object, or null: read it with {@link identityContext}. */
  context: string | null;
  successor_agent_id: string | null;
  created_at: string;
  updated_at: string;
}

/** A new row: the status starts `active` and no successor is named. */
export type NewAgentRow = Omit<AgentRow, 'status' | 'successor_agent_id' | 'context' | 'custody' | 'accepts_plaintext'> & {
  context: Record<string, unknown> | null;
  /** Defaults to `custodial`. */
  custody?: Custody;
  /** Defaults to accepting plaintext (1). */
  accepts_plaintext?: 0 | 1;
};

/** The settings an identity may change; an absent field keeps its value. */
export interface AgentSettingsPatch {
  human_name?: string | undefined;
  role?: string | undefined;
  program?: string | undefined;
  context?: Record<string, unknown> | undefined;
  address_reachability?: Reachability | undefined;
  accepts_plaintext?: boolean | undefined;
}

export interface RotationAnnouncementRow {
  announcement_id: string;
  agent_id: string;
  old_did: string;
  new_did: string;
  timestamp: string;
  old_key_signature: string;
  created_at: string;
}

/** The identity's free-form context as stored. */
export function identityContext(row: Pick<AgentRow, 'context'>): Record<string, unknown> | null {
  return row.context === null ? null : (JSON.parse(row.context) as Record<string, unknown>);
}

/** The identity with this id, whatever its status (deleted ones too). */
export function findIdentity(db: Db, agentId: string): AgentRow | undefined {
  return db.prepare(`SELECT * FROM agents WHERE agent_id = ?`).get(agentId) as AgentRow | undefined;
}

/** Its status, or undefined when no such identity was ever here. */
export function identityStatus(db: Db, agentId: string): IdentityStatus | undefined {
  return db.prepare(`SELECT status FROM agents WHERE agent_id = ?`).pluck().get(agentId) as IdentityStatus | undefined;
}

/** The project it belongs to, or undefined. */
export function identityProject(db: Db, agentId: string): string | undefined {
  return db.prepare(`SELECT project_id FROM agents WHERE agent_id = ?`).pluck().get(agentId) as string | undefined;
}

/** Every identity not deleted, oldest first. */
export function listLiveIdentities(db: Db): AgentRow[] {
  return db.prepare(`SELECT * FROM agents WHERE status <> 'deleted' ORDER BY created_at`).all() as AgentRow[];
}

/** The newest active or archived identity holding this did:svc, if this node hosts one. */
export function hostedIdentityOfDid(db: Db, didAw: string): AgentRow | undefined {
  return db.prepare(`SELECT * FROM agents WHERE did_aw = ? AND status IN ('active', 'archived') ORDER BY created_at DESC LIMIT 1`).get(didAw) as
    AgentRow | undefined;
}

/** The newest active or archived identity whose current key this is (an address assigned to a bare did:key). */
export function hostedIdentityOfDidKey(db: Db, didKey: string): AgentRow | undefined {
  return db.prepare(`SELECT * FROM agents WHERE did_key = ? AND status IN ('active', 'archived') ORDER BY created_at DESC LIMIT 1`).get(didKey) as
    AgentRow | undefined;
}

/** Deleted identities free their alias; archived and replaced ones keep it (the unique index says the same). */
export function aliasTaken(db: Db, projectId: string, alias: string): boolean {
  return db.prepare(`SELECT 1 FROM agents WHERE project_id = ? AND alias = ? AND status <> 'deleted'`).get(projectId, alias) !== undefined;
}

export function insertIdentity(db: Db, row: NewAgentRow): void {
  db.prepare(
    `INSERT INTO agents (agent_id, project_id, alias, name, lifetime, custody, key_id, did_key, did_aw, address_reachability,
       accepts_plaintext, human_name, role, program, context, created_at, updated_at)
     VALUES (@agent_id, @project_id, @alias, @name, @lifetime, @custody, @key_id, @did_key, @did_aw, @address_reachability,
       @accepts_plaintext, @human_name, @role, @program, @context, @created_at, @updated_at)`,
  ).run({
    ...row,
    custody: row.custody ?? 'custodial',
    accepts_plaintext: row.accepts_plaintext ?? 1,
    context: row.context === null ? null : JSON.stringify(row.context),
  });
}

export function updateIdentitySettings(db: Db, agentId: string, patch: AgentSettingsPatch, updatedAt: string): void {
  db.prepare(
    `UPDATE agents SET human_name = COALESCE(?, human_name), role = COALESCE(?, role), program = COALESCE(?, program),
       context = COALESCE(?, context), address_reachability = COALESCE(?, address_reachability),
       accepts_plaintext = COALESCE(?, accepts_plaintext), updated_at = ?
     WHERE agent_id = ?`,
  ).run(
    patch.human_name ?? null,
    patch.role ?? null,
    patch.program ?? null,
    patch.context === undefined ? null : JSON.stringify(patch.context),
    patch.address_reachability ?? null,
    patch.accepts_plaintext === undefined ? null : patch.accepts_plaintext ? 1 : 0,
    updatedAt,
    agentId,
  );
}

export function setIdentityKey(db: Db, agentId: string, key: { keyId: string; didKey: string }, updatedAt: string): void {
  db.prepare(`UPDATE agents SET key_id = ?, did_key = ?, updated_at = ? WHERE agent_id = ?`).run(key.keyId, key.didKey, updatedAt, agentId);
}

/**
 * A self-custodial identity follows its did:svc log: when the client rotates the key there
 * (PUT /v1/did/{did_aw}), its identities here take the new key. Custodial ones rotate through
 * custody and are left alone.
 */
export function followSelfCustodialKey(db: Db, didAw: string, didKey: string, updatedAt: string): void {
  db.prepare(`UPDATE agents SET did_key = ?, updated_at = ? WHERE did_aw = ? AND custody = 'self' AND status <> 'deleted'`).run(didKey, updatedAt, didAw);
}

/** Deletes or archives; a replacement names its successor with {@link markIdentityReplaced}. */
export function setIdentityStatus(db: Db, agentId: string, status: 'deleted' | 'archived', updatedAt: string): void {
  db.prepare(`UPDATE agents SET status = ?, updated_at = ? WHERE agent_id = ?`).run(status, updatedAt, agentId);
}

export function markIdentityReplaced(db: Db, agentId: string, successorAgentId: string, updatedAt: string): void {
  db.prepare(`UPDATE agents SET status = 'replaced', successor_agent_id = ?, updated_at = ? WHERE agent_id = ?`).run(successorAgentId, updatedAt, agentId);
}

export function insertRotationAnnouncement(db: Db, row: RotationAnnouncementRow): void {
  db.prepare(
    `INSERT INTO rotation_announcements (announcement_id, agent_id, old_did, new_did, timestamp, old_key_signature, created_at)
     VALUES (@announcement_id, @agent_id, @old_did, @new_did, @timestamp, @old_key_signature, @created_at)`,
  ).run(row);
}

/** The rotation that introduced the key `newDid`, as the wire shows it (a message signed with that key carries it). */
export function rotationAnnouncementTo(
  db: Db,
  newDid: string,
): Pick<RotationAnnouncementRow, 'old_did' | 'new_did' | 'timestamp' | 'old_key_signature'> | undefined {
  return db
    .prepare(`SELECT old_did, new_did, timestamp, old_key_signature FROM rotation_announcements WHERE new_did = ? ORDER BY created_at DESC LIMIT 1`)
    .get(newDid) as Pick<RotationAnnouncementRow, 'old_did' | 'new_did' | 'timestamp' | 'old_key_signature'> | undefined;
}
