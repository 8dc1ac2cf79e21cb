/**
 * The identities' end-to-end encryption keys, on the directory store's list: whether the node
 * holds any (what the warning about losing the node is for), and rotating one, after which the
 * identity shows the summary the node answered with, without reading every list again.
 */
import { computed, type Ref } from 'vue';
import type { EncryptionKeySummary, NodeClient, NodeIdentity } from '../api/owner.ts';

export function useEncryptionKeys(identities: Ref<NodeIdentity[]>, api: () => NodeClient) {
  /** Some identity's keys are in this node's custody: losing the node loses what was sealed to them. */
  const nodeHoldsKeys = computed(() => identities.value.some((identity) => identity.encryption_key.holder === 'node'));

  /** A fresh key for a custodial identity; the node keeps the old one, so old messages stay readable. */
  async function rotateEncryptionKey(agentId: string): Promise<EncryptionKeySummary> {
    const { summary } = await api().rotateEncryptionKey(agentId);
    identities.value = identities.value.map((identity) => (identity.agent_id === agentId ? { ...identity, encryption_key: summary } : identity));
    return summary;
  }

  return { nodeHoldsKeys, rotateEncryptionKey };
}
