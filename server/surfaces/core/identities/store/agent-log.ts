/**
 * The `agent_log` table: each identity's own signed audit trail, append-only (a trigger refuses
 * updates). The only module that reads or writes it; agent-log.ts signs what is appended.
 */
import type { Db } from '../../../../context.ts';
import type { AgentLogEntry } from '../../../../../contract/core/identities.ts';

export interface AgentLogRow extends Omit<AgentLogEntry, 'metadata'> {
  agent_id: string;
  /** JSON of an object. */
  metadata: string;
}

/** The wire entry of a row: its metadata parsed, the agent id (known to the reader) left out. */
export function toAgentLogEntry({ agent_id: _agent, ...row }: AgentLogRow): AgentLogEntry {
  return { ...row, metadata: JSON.parse(row.metadata) as Record<string, unknown> };
}

/** The highest seq in the identity's log; 0 for an empty log. */
export function lastAgentLogSeq(db: Db, agentId: string): number {
  return (db.prepare(`SELECT MAX(seq) FROM agent_log WHERE agent_id = ?`).pluck().get(agentId) as number | null) ?? 0;
}

export function insertAgentLogEntry(db: Db, agentId: string, entry: AgentLogEntry): void {
  db.prepare(
    `INSERT INTO agent_log (log_id, agent_id, seq, operation, old_did, new_did, signed_by, entry_signature, metadata, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    entry.log_id,
    agentId,
    entry.seq,
    entry.operation,
    entry.old_did,
    entry.new_did,
    entry.signed_by,
    entry.entry_signature,
    JSON.stringify(entry.metadata),
    entry.created_at,
  );
}

/** The identity's whole log, in order. */
export function agentLogEntries(db: Db, agentId: string): AgentLogEntry[] {
  const rows = db
    .prepare(
      `SELECT log_id, agent_id, seq, operation, old_did, new_did, signed_by, entry_signature, metadata, created_at FROM agent_log WHERE agent_id = ? ORDER BY seq`,
    )
    .all(agentId) as AgentLogRow[];
  return rows.map(toAgentLogEntry);
}
