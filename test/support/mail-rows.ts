/**
 * Mail rows as the mail store writes them, for store tests that need many of them fast (written
 * straight into the table, as a delivery would, without signing each).
 */
import type { AgentRow } from '../../server/surfaces/core/identities/store/agents.ts';
import type { NewMailRow } from '../../server/surfaces/core/mail/store/messages.ts';

export function mailRow(sender: AgentRow, recipient: AgentRow, fields: Partial<NewMailRow> & Pick<NewMailRow, 'message_id' | 'subject' | 'body'>): NewMailRow {
  return {
    from_agent_id: sender.agent_id,
    from_alias: sender.alias,
    from_address: null,
    from_did: sender.did_key,
    from_stable_id: null,
    to_agent_id: recipient.agent_id,
    to_text: recipient.alias,
    to_alias: recipient.alias,
    to_address: null,
    to_did: recipient.did_key,
    to_stable_id: null,
    priority: 'normal',
    signature: 'sig',
    signed_payload: '{}',
    created_at: new Date().toISOString(),
    origin: 'local',
    from_node: null,
    ...fields,
  };
}
