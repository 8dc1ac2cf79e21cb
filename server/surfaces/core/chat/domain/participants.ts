/**
 * Who takes part in a chat: identities of this node (messaging's `Party`) and, in a two-party
 * session, possibly one on another node, known by its address (and its key once it has written),
 * which takes part through federation; each node keeps its own copy of the session.
 */
import { invalid } from '../../../../errors.ts';
import type { AgentRow } from '../../identities/store/agents.ts';
import type { Party, Recipient } from '../../messaging/participants.ts';

/** An identity on another node: it has no row in agents here, its address names it. */
export interface RemoteParty {
  agent: null;
  alias: string;
  address: string;
  didKey: string;
  stableId: string | null;
}

export type ChatParty = Party | RemoteParty;

/** A participant as the sender addressed it: alias, address or did. */
export type ChatTarget = ChatParty & { to: string };

/**
 * Who is reading: agent ids are shown only within the reader's own project (as resolve does); a
 * reader holding its own keys gets an encrypted message's envelope, never what the node opened.
 */
export interface ChatViewer {
  agentId: string;
  projectId: string;
  custody: AgentRow['custody'];
}

/** What a message is signed to (messaging/signing.ts). */
export type Addressee = Pick<Recipient, 'to' | 'didKey' | 'stableId'>;

/** An identity on another node, known by its address, and by its key (did:key or did:svc) once it has written. */
export function remoteParty(address: string, did = ''): RemoteParty {
  return {
    agent: null,
    alias: address.slice(address.indexOf('/') + 1),
    address,
    didKey: did.startsWith('did:key:') ? did : '',
    stableId: did.startsWith('did:key:') || did === '' ? null : did,
  };
}

/**
 * Whether `party` is the identity `agentId` of this node. Not a type guard: a party that is not
 * this agent may still be another identity of this node, not only one on another node.
 */
export function isAgent(party: ChatParty, agentId: string): boolean {
  return party.agent !== null && party.agent.agent_id === agentId;
}

/** Whether a stored participant (its agent id, or its address on another node) is `party`. */
export function isParticipant(stored: { agent_id: string | null; remote_address: string | null }, party: ChatParty): boolean {
  return party.agent === null ? stored.remote_address === party.address : stored.agent_id === party.agent.agent_id;
}

/** The agent ids of the participants of this node (those with an identity stream to wake). */
export function localAgentIds(parties: readonly ChatParty[]): string[] {
  return parties.flatMap((party) => (party.agent === null ? [] : [party.agent.agent_id]));
}

/**
 * The participant's place in a session's participant key: its agent id, or `remote:<address>` for
 * one on another node (the spelling sessions have always been keyed with; migration 0022).
 */
export function partyKey(party: ChatParty): string {
  return party.agent === null ? `remote:${party.address}` : party.agent.agent_id;
}

/** Sorted participant keys joined by ',': a session's participant_key, through which two-party sessions are reused. */
export function participantKey(parties: readonly ChatParty[]): string {
  return parties.map(partyKey).sort().join(',');
}

/** A chat needs another participant, and each recipient once. */
export function assertDistinctTargets(senderAgentId: string, targets: readonly ChatTarget[]): void {
  const seen = new Map<string, string>();
  for (const target of targets) {
    if (isAgent(target, senderAgentId)) throw invalid('SVC_ERR_CHAT_WITH_SELF', `${target.to} is you: a chat needs another participant`);
    const key = partyKey(target);
    const earlier = seen.get(key);
    if (earlier !== undefined) throw invalid('SVC_ERR_RECIPIENT_DUPLICATE', `${earlier} and ${target.to} are the same recipient`);
    seen.set(key, target.to);
  }
}

/**
 * The signed `to`: one target as addressed (one on another node by its address alone, as
 * federation signs it), or the sorted comma-joined targets with no to_did.
 */
export function addressee(targets: readonly ChatTarget[]): Addressee {
  const [only] = targets;
  if (targets.length === 1 && only !== undefined) return only.agent === null ? { to: only.to, didKey: '', stableId: null } : only;
  return {
    to: targets
      .map((t) => t.to)
      .sort()
      .join(','),
    didKey: '',
    stableId: null,
  };
}
