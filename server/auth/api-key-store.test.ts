/**
 * The API key store on a real encrypted database: which keys authentication may consider (active,
 * unexpired, by prefix), deactivation per identity, and the last-used stamp.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { agentRow, useStoreDatabase } from '../../test/support/store-database.ts';
import { insertIdentity } from '../surfaces/core/identities/store/agents.ts';
import { insertProject } from '../surfaces/core/projects/store.ts';
import { deactivateAgentKeys, insertApiKey, liveKeysWithPrefix, touchApiKey } from './api-key-store.ts';

const db = useStoreDatabase();
const NOW = '2026-01-02T00:00:00.000Z';

function key(id: string, fields: { agentId?: string | null; prefix?: string; expiresAt?: string | null } = {}): void {
  insertApiKey(db(), {
    api_key_id: id,
    key_hash: `hash-${id}`,
    key_prefix: fields.prefix ?? 'svc_sk_aaaaa',
    project_id: 'p',
    agent_id: fields.agentId ?? null,
    created_at: '2026-01-01T00:00:00.000Z',
    label: null,
    expires_at: fields.expiresAt ?? null,
  });
}

const ids = (prefix = 'svc_sk_aaaaa') =>
  liveKeysWithPrefix(db(), prefix, NOW)
    .map((row) => row.api_key_id)
    .sort();

beforeAll(() => {
  insertProject(db(), { project_id: 'p', slug: 'p', name: 'p', namespace: null, created_at: '2026-01-01T00:00:00.000Z' });
  insertIdentity(db(), agentRow('ann', 'p'));
});

describe('the API key store', () => {
  it('offers the active keys with the prefix that have not expired', () => {
    key('project-key');
    key('ann-key', { agentId: 'ann' });
    key('expired', { expiresAt: NOW });
    key('session', { expiresAt: '2026-01-03T00:00:00.000Z' });
    key('other-prefix', { prefix: 'svc_sk_bbbbb' });
    expect(ids()).toEqual(['ann-key', 'project-key', 'session']);
    expect(liveKeysWithPrefix(db(), 'svc_sk_aaaaa', NOW).find((row) => row.api_key_id === 'ann-key')).toEqual({
      api_key_id: 'ann-key',
      key_hash: 'hash-ann-key',
      project_id: 'p',
      agent_id: 'ann',
    });
  });

  it('deactivates every key of an identity and nothing else', () => {
    deactivateAgentKeys(db(), 'ann');
    expect(ids()).toEqual(['project-key', 'session']);
  });

  it('stamps when a key was last used', () => {
    touchApiKey(db(), 'project-key', NOW);
    expect(db().prepare(`SELECT last_used_at FROM api_keys WHERE api_key_id = 'project-key'`).pluck().get()).toBe(NOW);
  });
});
