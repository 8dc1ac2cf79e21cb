/**
 * The identity's own audit trail: every lifecycle change, signed inside custody by the key that
 * was current when it happened, so an exported log can be checked without trusting the node.
 */
import { randomUUID } from 'node:crypto';
import type { NodeContext } from '../../../context.ts';
import { canonicalJsonBytes } from '../../../crypto/canonical-json.ts';
import { toBase64Unpadded } from '../../../crypto/encoding.ts';
import type { AgentLogEntry, AgentLogOperation } from '../../../../contract/core/identities.ts';

export type { AgentLogEntry, AgentLogOperation };

/** The bytes an agent log entry's signature covers. */
export function agentLogSigningBytes(agentId: string, entry: Omit<AgentLogEntry, 'log_id' | 'signed_by' | 'entry_signature'>): Buffer {
  return canonicalJsonBytes({ agent_id: agentId, ...entry });
}

export function appendAgentLog(
  ctx: NodeContext,
  agentId: string,
  signer: { keyId: string; didKey: string },
  entry: { operation: AgentLogOperation; old_did?: string | null; new_did?: string | null; metadata?: Record<string, unknown> },
): AgentLogEntry {
  const last = ctx.db.prepare(`SELECT MAX(seq) AS seq FROM agent_log WHERE agent_id = ?`).get(agentId) as { seq: number | null };
  const unsigned = {
    seq: (last.seq ?? 0) + 1,
    operation: entry.operation,
    old_did: entry.old_did ?? null,
    new_did: entry.new_did ?? null,
    metadata: entry.metadata ?? {},
    created_at: ctx.clock.now().toISOString(),
  };
  const signature = toBase64Unpadded(ctx.custody.sign(signer.keyId, agentLogSigningBytes(agentId, unsigned)));
  const row: AgentLogEntry = { log_id: randomUUID(), ...unsigned, signed_by: signer.didKey, entry_signature: signature };
  ctx.db
    .prepare(
      `INSERT INTO agent_log (log_id, agent_id, seq, operation, old_did, new_did, signed_by, entry_signature, metadata, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(row.log_id, agentId, row.seq, row.operation, row.old_did, row.new_did, row.signed_by, row.entry_signature, JSON.stringify(row.metadata), row.created_at);
  return row;
}

/** Restores entries from a backup verbatim: their signatures cover the original agent_id. */
export function restoreAgentLog(ctx: NodeContext, agentId: string, entries: AgentLogEntry[]): void {
  const insert = ctx.db.prepare(
    `INSERT INTO agent_log (log_id, agent_id, seq, operation, old_did, new_did, signed_by, entry_signature, metadata, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const e of entries) {
    insert.run(e.log_id, agentId, e.seq, e.operation, e.old_did, e.new_did, e.signed_by, e.entry_signature, JSON.stringify(e.metadata), e.created_at);
  }
}

export function readAgentLog(ctx: NodeContext, agentId: string): AgentLogEntry[] {
  const rows = ctx.db
    .prepare(`SELECT log_id, seq, operation, old_did, new_did, signed_by, entry_signature, metadata, created_at FROM agent_log WHERE agent_id = ? ORDER BY seq`)
    .all(agentId) as (Omit<AgentLogEntry, 'metadata'> & { metadata: string })[];
  return rows.map((row) => ({ ...row, metadata: JSON.parse(row.metadata) as Record<string, unknown> }));
}
