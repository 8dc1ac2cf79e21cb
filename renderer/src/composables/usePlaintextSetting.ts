/**
 * Whether an identity accepts plaintext mail from senders that do not encrypt end to end, on the
 * directory store's list: the owner changes it, and the identity then shows what the node
 * answered, without reading every list again.
 */
import type { Ref } from 'vue';
import type { NodeClient, NodeIdentity } from '../api/owner.ts';

export function usePlaintextSetting(identities: Ref<NodeIdentity[]>, api: () => NodeClient) {
  /** Turns it on or off; the identity as the node now shows it. */
  async function setAcceptsPlaintext(agentId: string, accepts: boolean): Promise<NodeIdentity> {
    const updated = await api().updateIdentity(agentId, { accepts_plaintext: accepts });
    identities.value = identities.value.map((identity) => (identity.agent_id === agentId ? updated : identity));
    return updated;
  }

  return { setAcceptsPlaintext };
}
