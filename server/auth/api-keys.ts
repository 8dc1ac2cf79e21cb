/**
 * `svc_sk_` API keys: 64 random hex digits, shown once; only the sha256 is stored, and the
 * comparison is constant-time.
 */
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Db } from '../context.ts';
import { sha256Hex } from '../crypto/encoding.ts';
import { insertApiKey, liveKeysWithPrefix, type ApiKeyCandidate } from './api-key-store.ts';

export const API_KEY_PATTERN = /^svc_sk_[0-9a-f]{64}$/;
const PREFIX_LENGTH = 12;

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
  insertApiKey(db, {
    api_key_id: apiKeyId,
    key_hash: sha256Hex(apiKey),
    key_prefix: apiKey.slice(0, PREFIX_LENGTH),
    project_id: projectId,
    agent_id: agentId,
    created_at: createdAt,
    label: options.label ?? null,
    expires_at: options.expiresAt ?? null,
  });
  return { apiKey, apiKeyId };
}

/** The active, unexpired key row matching `apiKey`, found by prefix and compared by hash in constant time. */
export function findApiKey(db: Db, apiKey: string, nowIso: string): ApiKeyCandidate | null {
  if (!API_KEY_PATTERN.test(apiKey)) return null;
  const presented = Buffer.from(sha256Hex(apiKey), 'hex');
  let match: ApiKeyCandidate | null = null;
  for (const row of liveKeysWithPrefix(db, apiKey.slice(0, PREFIX_LENGTH), nowIso)) {
    if (timingSafeEqual(Buffer.from(row.key_hash, 'hex'), presented)) match = row;
  }
  return match;
}
