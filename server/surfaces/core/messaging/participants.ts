/**
 * Who is on either end of a message: the sending identity and each recipient, resolved once
 * with the rules shared by mail, chat and MCP.
 */
import type { AgentRow } from '../identities/store/agents.ts';

export interface Party {
  agent: AgentRow;
  alias: string;
  /** `domain/name` when the identity has an address. */
  address: string | null;
  didKey: string;
  stableId: string | null;
}

export interface Recipient extends Party {
  /** The recipient as the sender addressed it: alias, address or did. */
  to: string;
}
