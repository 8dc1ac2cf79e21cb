/**
 * For store tests beside the code: a fresh node database per test file, encrypted and migrated
 * as the node opens it (foreign keys on), removed with its folder afterwards; and the rows many
 * of them need first.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { Db } from '../../server/context.ts';
import type { AgentRow, NewAgentRow } from '../../server/surfaces/core/identities/store/agents.ts';
import { openNodeDatabase } from './database.ts';

/** Registers the file's open and close; the returned function gives the open database. */
export function useStoreDatabase(): () => Db {
  let dir: string | null = null;
  let opened: Awaited<ReturnType<typeof openNodeDatabase>> | null = null;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-store-'));
    opened = await openNodeDatabase(dir);
  });
  afterAll(() => {
    opened?.close();
    if (dir !== null) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    if (opened === null) throw new Error('the store database opens in beforeAll');
    return opened.db;
  };
}

/** An ephemeral identity's row for `insertIdentity`, with whatever the test sets. */
export function agentRow(agentId: string, projectId: string, fields: Partial<NewAgentRow> = {}): NewAgentRow {
  return {
    agent_id: agentId,
    project_id: projectId,
    alias: agentId,
    name: null,
    lifetime: 'ephemeral',
    key_id: `key-${agentId}`,
    did_key: `did:key:z${agentId}`,
    did_aw: null,
    address_reachability: 'public',
    human_name: '',
    role: null,
    program: null,
    context: null,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    ...fields,
  };
}

/** A project with the given id, once. */
export function addProject(db: Db, projectId: string): void {
  db.prepare(`INSERT OR IGNORE INTO projects (project_id, slug, name, created_at) VALUES (?, ?, ?, ?)`).run(
    projectId,
    projectId,
    projectId,
    '2026-01-01T00:00:00.000Z',
  );
}

/**
 * An identity stored as it is (status and successor included; mail, chat and the outbox refer to
 * it), in a project of its own unless one is given (created as needed), with a fresh did:key.
 */
export function addIdentity(db: Db, fields: Partial<AgentRow> & Pick<AgentRow, 'alias'>): AgentRow {
  const agentId = fields.agent_id ?? randomUUID();
  const row: AgentRow = {
    ...agentRow(agentId, randomUUID(), { key_id: randomUUID(), did_key: `did:key:z${randomUUID()}` }),
    // Stored as text (NewAgentRow takes it parsed too).
    context: null,
    status: 'active',
    custody: 'custodial',
    accepts_plaintext: 1,
    successor_agent_id: null,
    ...fields,
  };
  addProject(db, row.project_id);
  if (row.did_aw !== null) {
    db.prepare(`INSERT OR IGNORE INTO did_mappings (did_aw, current_did_key, created_at, updated_at) VALUES (?, ?, ?, ?)`).run(
      row.did_aw,
      row.did_key,
      row.created_at,
      row.created_at,
    );
  }
  db.prepare(
    `INSERT INTO agents (agent_id, project_id, alias, name, lifetime, status, key_id, did_key, did_aw, address_reachability, human_name, role, program,
       context, successor_agent_id, created_at, updated_at)
     VALUES (@agent_id, @project_id, @alias, @name, @lifetime, @status, @key_id, @did_key, @did_aw, @address_reachability, @human_name, @role, @program,
       @context, @successor_agent_id, @created_at, @updated_at)`,
  ).run(row);
  return row;
}
