/**
 * The `api_keys` table: the sha256 of every `svc_sk_` key with its project, identity, label and
 * expiry. The only module that reads or writes it; api-keys.ts makes and checks the keys.
 */
import type { Db } from '../context.ts';

export interface ApiKeyRow {
  api_key_id: string;
  /** sha256 hex of the whole key. */
  key_hash: string;
  key_prefix: string;
  project_id: string;
  /** null: a project-authority key. */
  agent_id: string | null;
  is_active: 0 | 1;
  created_at: string;
  last_used_at: string | null;
  label: string | null;
  expires_at: string | null;
}

/** What authentication needs of a key. */
export type ApiKeyCandidate = Pick<ApiKeyRow, 'api_key_id' | 'key_hash' | 'project_id' | 'agent_id'>;

export function insertApiKey(db: Db, row: Omit<ApiKeyRow, 'is_active' | 'last_used_at'>): void {
  db.prepare(
    `INSERT INTO api_keys (api_key_id, key_hash, key_prefix, project_id, agent_id, created_at, label, expires_at)
     VALUES (@api_key_id, @key_hash, @key_prefix, @project_id, @agent_id, @created_at, @label, @expires_at)`,
  ).run(row);
}

/** The active keys with this prefix that have not expired at `nowIso`. */
export function liveKeysWithPrefix(db: Db, prefix: string, nowIso: string): ApiKeyCandidate[] {
  return db
    .prepare(
      `SELECT api_key_id, key_hash, project_id, agent_id FROM api_keys
       WHERE key_prefix = ? AND is_active = 1 AND (expires_at IS NULL OR expires_at > ?)`,
    )
    .all(prefix, nowIso) as ApiKeyCandidate[];
}

/** Every key of the identity stops working (it was deleted, archived or replaced). */
export function deactivateAgentKeys(db: Db, agentId: string): void {
  db.prepare(`UPDATE api_keys SET is_active = 0 WHERE agent_id = ?`).run(agentId);
}

/** These keys stop working (the browser session that minted them was signed out). */
export function deactivateApiKeys(db: Db, apiKeyIds: readonly string[]): void {
  const statement = db.prepare(`UPDATE api_keys SET is_active = 0 WHERE api_key_id = ?`);
  for (const id of apiKeyIds) statement.run(id);
}

export function touchApiKey(db: Db, apiKeyId: string, usedAt: string): void {
  db.prepare(`UPDATE api_keys SET last_used_at = ? WHERE api_key_id = ?`).run(usedAt, apiKeyId);
}
