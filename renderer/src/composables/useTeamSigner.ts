/**
 * How a team surface's client (documents, library) has its requests signed, written once for
 * both: the node signs each one as the team's owner member (NodeClient.signAsTeam, addressed to
 * that surface); a write names the identity chosen in the switcher (`acting_as`), which the node
 * records on what it changes, a read names nobody. With no team chosen nothing is signed, and the
 * refusal says why in words a view can show.
 */
import { ApiError } from '../api/errors.ts';
import type { TeamSigner } from '../api/team-request.ts';
import { useDirectoryStore } from '../stores/directory.ts';
import { useSessionStore } from '../stores/session.ts';

export function useTeamSigner(surface: 'library' | 'docs'): (teamId: string | null) => TeamSigner {
  const session = useSessionStore();
  const directory = useDirectoryStore();
  return (teamId) => (request) => {
    if (teamId === null) return Promise.reject(new ApiError(0, 'No team is chosen: create one first.'));
    const actingAs = request.method === 'GET' ? undefined : directory.currentIdentity?.agent_id;
    return session.api().signAsTeam(teamId, actingAs === undefined ? request : { ...request, acting_as: actingAs }, surface);
  };
}
