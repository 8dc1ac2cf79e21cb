/**
 * The one way a mail row is written, whoever writes it: a send on this node (mail/service.ts), mail
 * arriving from another node (federation/inbound.ts), and a bounce (federation/outbox.ts).
 */
import type { Db } from '../../../context.ts';
import type { MessageRow } from './service.ts';

/** `from_namespace_trust` is only known for mail from another node (federation/inbound.ts). */
export type MailRowInput = Omit<MessageRow, 'id' | 'read_at' | 'from_namespace_trust' | 'archived_at' | 'deleted_at'> &
  Partial<Pick<MessageRow, 'from_namespace_trust'>>;

export function insertMailRow(db: Db, row: MailRowInput): void {
  db.prepare(
    `INSERT INTO messages (message_id, from_agent_id, from_alias, from_address, from_did, from_stable_id, to_agent_id, to_text, to_alias,
       to_address, to_did, to_stable_id, subject, body, priority, signature, signed_payload, created_at, origin, from_node, from_namespace_trust)
     VALUES (@message_id, @from_agent_id, @from_alias, @from_address, @from_did, @from_stable_id, @to_agent_id, @to_text, @to_alias,
       @to_address, @to_did, @to_stable_id, @subject, @body, @priority, @signature, @signed_payload, @created_at, @origin, @from_node,
       @from_namespace_trust)`,
  ).run({ ...row, from_namespace_trust: row.from_namespace_trust ?? null });
}
