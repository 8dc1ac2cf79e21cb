/**
 * The `identity_encryption_keys` table (migration 0038): each identity's published encryption key
 * assertions, the current one and the archived ones. The only module that reads or writes it.
 */
import type { Db } from '../../../../context.ts';
import type { AgentRow } from './agents.ts';

export interface EncryptionKeyRecord {
  agent_id: string;
  encryption_key_id: string;
  /** The key in custody; '' for a key a self-custodial client holds. */
  key_id: string;
  /** The assertion's JSON as published. */
  assertion: string;
  /** ISO 8601, comparable as text. */
  expires_at: string;
  created_at: string;
  archived_at: string | null;
}

export function currentEncryptionKey(db: Db, agentId: string): EncryptionKeyRecord | undefined {
  return db.prepare(`SELECT * FROM identity_encryption_keys WHERE agent_id = ? AND archived_at IS NULL`).get(agentId) as EncryptionKeyRecord | undefined;
}

export function encryptionKeyOf(db: Db, agentId: string, encryptionKeyId: string): EncryptionKeyRecord | undefined {
  return db.prepare(`SELECT * FROM identity_encryption_keys WHERE agent_id = ? AND encryption_key_id = ?`).get(agentId, encryptionKeyId) as
    EncryptionKeyRecord | undefined;
}

export function encryptionKeysOf(db: Db, agentId: string): EncryptionKeyRecord[] {
  return db.prepare(`SELECT * FROM identity_encryption_keys WHERE agent_id = ? ORDER BY created_at`).all(agentId) as EncryptionKeyRecord[];
}

export function archiveCurrentEncryptionKey(db: Db, agentId: string, at: string): void {
  db.prepare(`UPDATE identity_encryption_keys SET archived_at = ? WHERE agent_id = ? AND archived_at IS NULL`).run(at, agentId);
}

/** Makes this key the identity's current one; a key published again (renewed) keeps its row. */
export function putCurrentEncryptionKey(db: Db, row: Omit<EncryptionKeyRecord, 'archived_at'>): void {
  db.prepare(
    `INSERT INTO identity_encryption_keys (agent_id, encryption_key_id, key_id, assertion, expires_at, created_at)
     VALUES (@agent_id, @encryption_key_id, @key_id, @assertion, @expires_at, @created_at)
     ON CONFLICT (agent_id, encryption_key_id) DO UPDATE SET assertion = excluded.assertion, expires_at = excluded.expires_at, archived_at = NULL`,
  ).run(row);
}

/** Live identities whose keys custody holds and that have no current encryption key yet. */
export function custodialWithoutEncryptionKey(db: Db): AgentRow[] {
  return db
    .prepare(
      `SELECT a.* FROM agents a WHERE a.custody = 'custodial' AND a.key_id <> '' AND a.status IN ('active', 'archived')
       AND NOT EXISTS (SELECT 1 FROM identity_encryption_keys k WHERE k.agent_id = a.agent_id AND k.archived_at IS NULL)
       ORDER BY a.created_at`,
    )
    .all() as AgentRow[];
}

/** Live custodial identities whose current assertion expires at or before `before` (ISO 8601). */
export function custodialKeysExpiringBy(db: Db, before: string): string[] {
  return db
    .prepare(
      `SELECT k.agent_id FROM identity_encryption_keys k JOIN agents a ON a.agent_id = k.agent_id
       WHERE k.archived_at IS NULL AND k.key_id <> '' AND a.custody = 'custodial' AND a.status IN ('active', 'archived') AND k.expires_at <= ?
       ORDER BY k.expires_at`,
    )
    .pluck()
    .all(before) as string[];
}
