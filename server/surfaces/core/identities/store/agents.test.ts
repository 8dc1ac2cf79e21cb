/**
 * The identity stores on a real encrypted database: the agents row and its context mapper, which
 * identities count as live (aliases, lists, address resolution), settings patches, and the agent
 * log's sequence and mapper.
 */
import { describe, expect, it } from 'vitest';
import { agentRow, useStoreDatabase } from '../../../../../test/support/store-database.ts';
import { appendDidLogEntry } from '../../did/store.ts';
import { insertProject } from '../../projects/store.ts';
import { agentLogEntries, insertAgentLogEntry, lastAgentLogSeq } from './agent-log.ts';
import {
  aliasTaken,
  findIdentity,
  hostedIdentityOfDid,
  identityContext,
  identityProject,
  identityStatus,
  insertIdentity,
  listLiveIdentities,
  markIdentityReplaced,
  setIdentityKey,
  setIdentityStatus,
  updateIdentitySettings,
  type NewAgentRow,
} from './agents.ts';

const db = useStoreDatabase();
let counter = 0;

function project(): string {
  const projectId = `project-${++counter}`;
  insertProject(db(), { project_id: projectId, slug: projectId, name: projectId, namespace: null, created_at: '2026-01-01T00:00:00.000Z' });
  return projectId;
}

/** A did:svc registered with a placeholder genesis entry (the store checks no signatures). */
function didSvc(): string {
  const didAw = `did:svc:test${++counter}`;
  appendDidLogEntry(
    db(),
    {
      did_aw: didAw,
      seq: 1,
      operation: 'register_did',
      previous_did_key: null,
      new_did_key: `did:key:z${counter}`,
      prev_entry_hash: null,
      entry_hash: `hash-${counter}`,
      state_hash: 'state',
      authorized_by: `did:key:z${counter}`,
      signature: 'sig',
      timestamp: '2026-01-01T00:00:00Z',
    },
    '2026-01-01T00:00:00.000Z',
  );
  return didAw;
}

function identity(projectId: string, fields: Partial<NewAgentRow> = {}): string {
  const agentId = `agent-${++counter}`;
  insertIdentity(db(), agentRow(agentId, projectId, { created_at: `2026-01-01T00:00:${String(counter).padStart(2, '0')}.000Z`, ...fields }));
  return agentId;
}

describe('the agents store', () => {
  it('stores a new identity active, with its context as JSON the mapper reads back', () => {
    const projectId = project();
    const agentId = identity(projectId, { context: { repo: 'x', depth: 2 } });
    const row = findIdentity(db(), agentId);
    expect(row).toMatchObject({ agent_id: agentId, project_id: projectId, status: 'active', successor_agent_id: null, context: '{"repo":"x","depth":2}' });
    expect(identityContext(row!)).toEqual({ repo: 'x', depth: 2 });
    expect(identityContext({ context: null })).toBeNull();
    expect(identityStatus(db(), agentId)).toBe('active');
    expect(identityProject(db(), agentId)).toBe(projectId);
    expect(findIdentity(db(), 'nobody')).toBeUndefined();
    expect(identityStatus(db(), 'nobody')).toBeUndefined();
  });

  it('frees an alias when its identity is deleted, not when it is archived', () => {
    const projectId = project();
    const deleted = identity(projectId, { alias: 'gone' });
    const archived = identity(projectId, { alias: 'kept' });
    setIdentityStatus(db(), deleted, 'deleted', '2026-01-02T00:00:00.000Z');
    setIdentityStatus(db(), archived, 'archived', '2026-01-02T00:00:00.000Z');
    expect(aliasTaken(db(), projectId, 'gone')).toBe(false);
    expect(aliasTaken(db(), projectId, 'kept')).toBe(true);
    expect(aliasTaken(db(), project(), 'kept')).toBe(false);
    expect(listLiveIdentities(db()).map((row) => row.agent_id)).not.toContain(deleted);
  });

  it('lists live identities oldest first', () => {
    const ids = listLiveIdentities(db()).map((row) => row.created_at);
    expect(ids).toEqual([...ids].sort());
  });

  it('resolves a did:svc to the newest identity still taking part', () => {
    const projectId = project();
    const didAw = didSvc();
    const older = identity(projectId, { did_aw: didAw, lifetime: 'persistent' });
    const newer = identity(projectId, { did_aw: didAw, lifetime: 'persistent' });
    expect(hostedIdentityOfDid(db(), didAw)?.agent_id).toBe(newer);
    markIdentityReplaced(db(), newer, older, '2026-01-02T00:00:00.000Z');
    expect(findIdentity(db(), newer)).toMatchObject({ status: 'replaced', successor_agent_id: older });
    expect(hostedIdentityOfDid(db(), didAw)?.agent_id).toBe(older);
    setIdentityStatus(db(), older, 'archived', '2026-01-02T00:00:00.000Z');
    expect(hostedIdentityOfDid(db(), didAw)?.agent_id).toBe(older);
    expect(hostedIdentityOfDid(db(), didSvc())).toBeUndefined();
  });

  it('changes only the settings a patch names, and the key on rotation', () => {
    const agentId = identity(project(), { human_name: 'Ada', role: 'lead', context: { a: 1 } });
    updateIdentitySettings(db(), agentId, { program: 'codex', address_reachability: 'contacts-only' }, '2026-01-03T00:00:00.000Z');
    expect(findIdentity(db(), agentId)).toMatchObject({
      human_name: 'Ada',
      role: 'lead',
      program: 'codex',
      context: '{"a":1}',
      address_reachability: 'contacts-only',
      updated_at: '2026-01-03T00:00:00.000Z',
    });
    setIdentityKey(db(), agentId, { keyId: 'key-next', didKey: 'did:key:zNext' }, '2026-01-04T00:00:00.000Z');
    expect(findIdentity(db(), agentId)).toMatchObject({ key_id: 'key-next', did_key: 'did:key:zNext' });
  });
});

describe('the agent log store', () => {
  it('numbers from 1 and reads entries back in order with their metadata parsed', () => {
    const agentId = identity(project());
    expect(lastAgentLogSeq(db(), agentId)).toBe(0);
    const entry = (seq: number) => ({
      log_id: `log-${agentId}-${seq}`,
      seq,
      operation: 'update_settings' as const,
      old_did: null,
      new_did: null,
      signed_by: 'did:key:zSigner',
      entry_signature: 'sig',
      metadata: { fields: ['role'], seq },
      created_at: '2026-01-01T00:00:00.000Z',
    });
    insertAgentLogEntry(db(), agentId, entry(2));
    insertAgentLogEntry(db(), agentId, entry(1));
    expect(lastAgentLogSeq(db(), agentId)).toBe(2);
    const read = agentLogEntries(db(), agentId);
    expect(read).toEqual([entry(1), entry(2)]);
    expect(Object.keys(read[0]!)).toEqual(Object.keys(entry(1)));
  });
});
