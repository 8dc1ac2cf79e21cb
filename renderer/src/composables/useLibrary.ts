/**
 * The library surface as a team of this node (api/library.ts): the chosen team (stores/teams.ts)
 * unless another is named, every request signed by the node as that team's owner member. The
 * catalog reads need no team. Shared by the Shelf's stores (shelf, catalog, proposal badge).
 */
import { ApiError } from '../api/errors.ts';
import { LibraryClient } from '../api/library.ts';
import { useSessionStore } from '../stores/session.ts';
import { useTeamsStore } from '../stores/teams.ts';

export function useLibrary(): (id?: string | null) => LibraryClient {
  const session = useSessionStore();
  const teams = useTeamsStore();
  return (id = teams.teamId) => {
    const api = session.api();
    return new LibraryClient({
      libraryUrl: session.info?.library_url || api.coreUrl,
      teamId: id ?? '',
      fetch: (input, init) => window.fetch(input, init),
      sign: (request) => (id === null ? Promise.reject(new ApiError(0, 'No team is chosen: create one first.')) : api.signAsTeam(id, request)),
    });
  };
}
