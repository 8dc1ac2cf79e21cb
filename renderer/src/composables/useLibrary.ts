/**
 * The library surface as a team of this node (api/library.ts): the chosen team (stores/teams.ts)
 * unless another is named, every request signed by the node as that team's owner member; writes
 * name the identity chosen in the switcher (`acting_as`), which the node records on what they
 * decide or submit (a proposal's "Approved by alice"; composables/useTeamSigner.ts). The catalog
 * reads need no team. Shared by the Shelf's stores (shelf, catalog, proposal badge).
 */
import { LibraryClient } from '../api/library.ts';
import { useSessionStore } from '../stores/session.ts';
import { useTeamsStore } from '../stores/teams.ts';
import { useTeamSigner } from './useTeamSigner.ts';

export function useLibrary(): (id?: string | null) => LibraryClient {
  const session = useSessionStore();
  const teams = useTeamsStore();
  const signer = useTeamSigner('library');
  return (id = teams.teamId) =>
    new LibraryClient({
      libraryUrl: session.info?.library_url || session.api().coreUrl,
      teamId: id ?? '',
      fetch: (input, init) => window.fetch(input, init),
      sign: signer(id),
    });
}
