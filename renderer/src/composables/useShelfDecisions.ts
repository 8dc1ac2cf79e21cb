/**
 * Deciding the selected profile's proposals (stores/shelf.ts says which profile is selected):
 * approving one mints the next patch version, rejecting one closes it. Either way the profile,
 * its row and the open proposals' badge are read again, also when the node refused the decision:
 * a stale base makes the node reject the proposal in that same step, so what is shown must follow.
 */
import type { Ref } from 'vue';
import type { LibraryClient, Proposal } from '../api/library.ts';

/** What a decision reads and changes, as the shelf store holds it. */
export interface DecidedProfile {
  library: () => LibraryClient;
  selectedRef: Readonly<Ref<string | null>>;
  /** Reads the profile, its shelf row and the badge again after a change to it. */
  afterChange: (profileRef: string) => Promise<void>;
}

export function useShelfDecisions(shelf: DecidedProfile) {
  async function decide(decision: (client: LibraryClient) => Promise<Proposal>): Promise<Proposal> {
    const profileRef = shelf.selectedRef.value;
    try {
      return await decision(shelf.library());
    } finally {
      if (profileRef !== null) await shelf.afterChange(profileRef);
    }
  }

  /** Approves a proposal (minting the next patch version). */
  function approve(proposalId: string): Promise<Proposal> {
    return decide((client) => client.approve(proposalId));
  }

  function reject(proposalId: string): Promise<Proposal> {
    return decide((client) => client.reject(proposalId));
  }

  return { approve, reject };
}
