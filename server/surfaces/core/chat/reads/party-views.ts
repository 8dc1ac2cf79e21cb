/** Participants as responses show them. */
import type { ChatParticipant } from '../../../../../contract/core/chat.ts';
import type { ChatParty, ChatViewer } from '../domain/participants.ts';

/** An identity of the viewer's project is shown with its agent id; anyone else by alias, address and key. */
export function participantView(viewer: ChatViewer, party: ChatParty): ChatParticipant {
  return {
    agent_id: party.agent !== null && party.agent.project_id === viewer.projectId ? party.agent.agent_id : null,
    alias: party.alias,
    address: party.address,
    did: party.stableId ?? party.didKey,
  };
}

/** The other participants as a session list row names them (upstream's fields). */
export function othersFields(others: readonly ChatParty[]): { participants: string[]; participant_addresses: string[]; participant_dids: string[] } {
  return {
    participants: others.map((p) => p.alias),
    participant_addresses: others.map((p) => p.address ?? p.alias),
    participant_dids: others.map((p) => p.stableId ?? p.didKey),
  };
}
