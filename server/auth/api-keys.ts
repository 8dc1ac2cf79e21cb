/**
 * `svc_sk_` API keys: 64 random hex digits, shown once; only the sha256 is stored, and the
 * comparison is constant-time.
 */
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Db } from '../context.ts';
import { sha256Hex } from '../crypto/encoding.ts';

export const API_KEY_PATTERN = /^svc_sk_[0-9a-f]{64}$/;
const PREFIX_LENGTH = 12;

export interface ApiKeyRow {
  api_key_id: string;
  key_hash: string;
  project_id: string;
  agent_id: string | null;
}

export function newApiKeyText(): string {
  return `svc_sk_${randomBytes(32).toString('hex')}`;
}

export interface KeyOptions {
  /** What the key is for, e.g. 'ui-session'. */
  label?: string;
  /** ISO time after which the key stops working; none: until deactivated. */
  expiresAt?: string;
}

/** Stores a new key for a project (agentId null: project authority) and returns its plaintext. */
export function issueApiKey(
  db: Db,
  projectId: string,
  agentId: string | null,
  createdAt: string,
  options: KeyOptions = {},
): { apiKey: string; apiKeyId: string } {
  const apiKey = newApiKeyText();
  const apiKeyId = randomUUID();
  db.prepare(
    `INSERT INTO api_keys (api_key_id, key_hash, key_prefix, project_id, agent_id, created_at, label, expires_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(apiKeyId, sha256Hex(apiKey), apiKey.slice(0, PREFIX_LENGTH), projectId, agentId, createdAt, options.label ?? null, options.expiresAt ?? null);
  return { apiKey, apiKeyId };
}

/** The active, unexpired key row matching `apiKey`, found by prefix and compared by hash in constant time. */
export function findApiKey(db: Db, apiKey: string, nowIso: string): ApiKeyRow | null {
  if (!API_KEY_PATTERN.test(apiKey)) return null;
  const presented = Buffer.from(sha256Hex(apiKey), 'hex');
  const candidates = db
    .prepare(
      `SELECT api_key_id, key_hash, project_id, agent_id FROM api_keys
       WHERE key_prefix = ? AND is_active = 1 AND (expires_at IS NULL OR expires_at > ?)`,
    )
    .all(apiKey.slice(0, PREFIX_LENGTH), nowIso) as ApiKeyRow[];
  let match: ApiKeyRow | null = null;
  for (const row of candidates) {
    if (timingSafeEqual(Buffer.from(row.key_hash, 'hex'), presented)) match = row;
  }
  return match;
}

export function deactivateAgentKeys(db: Db, agentId: string): void {
  db.prepare(`UPDATE api_keys SET is_active = 0 WHERE agent_id = ?`).run(agentId);
}
