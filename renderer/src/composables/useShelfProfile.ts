/**
 * The Shelf's selected profile as read from the library (stores/shelf.ts says which is
 * selected): its latest version with the files, every version, its proposals (open first,
 * lib/shelf.ts#sortProposals), and an older version's files when one is viewed instead. An answer
 * for a profile no longer selected is dropped, and so is an older version's when another was
 * chosen since; the profile read again (an update arrived) keeps the version being viewed.
 */
import { ref, shallowRef } from 'vue';
import type { LibraryClient, Proposal, ProfileVersion, ProfileWithFiles } from '../api/library.ts';
import { errorMessage } from '../lib/format.ts';
import { sortProposals } from '../lib/shelf.ts';

export function useShelfProfile(library: () => LibraryClient) {
  const current = shallowRef<ProfileWithFiles | null>(null);
  const profileLoading = ref(false);
  const profileError = ref<string | null>(null);
  const versions = ref<ProfileVersion[]>([]);
  const proposals = ref<Proposal[]>([]);
  /** An older version whose files are shown instead of the latest. */
  const viewed = shallowRef<ProfileWithFiles | null>(null);
  const viewError = ref<string | null>(null);

  /** Bumped by every read of the profile and by clearProfile: only the latest read is shown. */
  let profileGeneration = 0;
  /**
   * Bumped by every version chosen and by clearProfile, not by reading the profile again: an
   * update arriving while an older version loads must not drop the version the person asked for.
   */
  let viewGeneration = 0;

  /** No profile shown (another selected, the catalog, another team): answers on their way are dropped. */
  function clearProfile(): void {
    profileGeneration++;
    viewGeneration++;
    current.value = null;
    versions.value = [];
    proposals.value = [];
    viewed.value = null;
    viewError.value = null;
    profileError.value = null;
    profileLoading.value = false;
  }

  /** The latest version with its files, every version, and the profile's proposals. */
  async function loadProfile(profileRef: string, quiet = false): Promise<void> {
    const mine = ++profileGeneration;
    if (!quiet) profileLoading.value = true;
    try {
      const client = library();
      const [profile, versionList, proposalList] = await Promise.all([
        client.profile(profileRef),
        client.versions(profileRef),
        client.proposals({ profile_ref: profileRef }),
      ]);
      if (mine !== profileGeneration) return;
      current.value = profile;
      versions.value = versionList;
      proposals.value = sortProposals(proposalList);
      profileError.value = null;
    } catch (error) {
      if (mine === profileGeneration) profileError.value = errorMessage(error);
    } finally {
      if (mine === profileGeneration) profileLoading.value = false;
    }
  }

  /** Shows an older version's files of `profileRef` (null: back to the latest). */
  async function viewVersion(profileRef: string | null, version: string | null): Promise<void> {
    const mine = ++viewGeneration;
    viewError.value = null;
    if (version === null || profileRef === null || version === current.value?.version) {
      viewed.value = null;
      return;
    }
    try {
      const profile = await library().profile(profileRef, version);
      if (mine === viewGeneration) viewed.value = profile;
    } catch (error) {
      if (mine === viewGeneration) viewError.value = errorMessage(error);
    }
  }

  /** The latest version's files shown again; an older version on its way is dropped. */
  function showLatest(): void {
    viewGeneration++;
    viewed.value = null;
    viewError.value = null;
  }

  /** A version with its files, without showing it (the base a decided proposal was made on). */
  function profileAt(profileRef: string, version: string): Promise<ProfileWithFiles> {
    return library().profile(profileRef, version);
  }

  return { current, profileLoading, profileError, versions, proposals, viewed, viewError, clearProfile, loadProfile, viewVersion, showLatest, profileAt };
}
