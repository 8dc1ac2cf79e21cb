/**
 * The identity's own audit trail: every lifecycle change, signed inside custody by the key that
 * was current when it happened, so an exported log can be checked without trusting the node.
 */
import { randomUUID } from 'node:crypto';
import type { NodeContext } from '../../../context.ts';
import { canonicalJsonBytes } from '../../../crypto/canonical-json.ts';
import { toBase64Unpadded } from '../../../crypto/encoding.ts';
import { insertAgentLogEntry, lastAgentLogSeq } from './store/agent-log.ts';
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
  const unsigned = {
    seq: lastAgentLogSeq(ctx.db, agentId) + 1,
    operation: entry.operation,
    old_did: entry.old_did ?? null,
    new_did: entry.new_did ?? null,
    metadata: entry.metadata ?? {},
    created_at: ctx.clock.now().toISOString(),
  };
  // A self-custodial identity has no key in custody (key_id ''): its entries are the node's
  // record, unsigned (signed_by and entry_signature ''); what it signs itself is its did:svc log.
  const selfCustodial = signer.keyId === '';
  const signature = selfCustodial ? '' : toBase64Unpadded(ctx.custody.sign(signer.keyId, agentLogSigningBytes(agentId, unsigned)));
  const row: AgentLogEntry = { log_id: randomUUID(), ...unsigned, signed_by: selfCustodial ? '' : signer.didKey, entry_signature: signature };
  insertAgentLogEntry(ctx.db, agentId, row);
  return row;
}

/** Restores entries from a backup verbatim: their signatures cover the original agent_id. */
export function restoreAgentLog(ctx: NodeContext, agentId: string, entries: AgentLogEntry[]): void {
  for (const entry of entries) insertAgentLogEntry(ctx.db, agentId, entry);
}
