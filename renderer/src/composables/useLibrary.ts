/**
 * The library surface as a team of this node (api/library.ts): the chosen team (stores/teams.ts)
 * unless another is named, every request signed by the node as that team's owner member; writes
 * name the identity chosen in the switcher (`acting_as`), which the node records on what they
 * decide or submit (a proposal's "Approved by alice"). The catalog reads need no team. Shared by
 * the Shelf's stores (shelf, catalog, proposal badge).
 */
import { ApiError } from '../api/errors.ts';
import { LibraryClient } from '../api/library.ts';
import { useDirectoryStore } from '../stores/directory.ts';
import { useSessionStore } from '../stores/session.ts';
import { useTeamsStore } from '../stores/teams.ts';

export function useLibrary(): (id?: string | null) => LibraryClient {
  const session = useSessionStore();
  const teams = useTeamsStore();
  const directory = useDirectoryStore();
  return (id = teams.teamId) => {
    const api = session.api();
    return new LibraryClient({
      libraryUrl: session.info?.library_url || api.coreUrl,
      teamId: id ?? '',
      fetch: (input, init) => window.fetch(input, init),
      sign: (request) => {
        if (id === null) return Promise.reject(new ApiError(0, 'No team is chosen: create one first.'));
        const actingAs = request.method === 'GET' ? undefined : directory.currentIdentity?.agent_id;
        return api.signAsTeam(id, actingAs === undefined ? request : { ...request, acting_as: actingAs });
      },
    });
  };
}
