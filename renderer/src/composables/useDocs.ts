/**
 * The document surface as a team of this node (api/docs.ts): the chosen team (stores/teams.ts)
 * unless another is named, every request signed by the node as that team's owner member; writes
 * name the identity chosen in the switcher (`acting_as`), which the node records on the version
 * (composables/useTeamSigner.ts).
 */
import { DocsClient } from '../api/docs.ts';
import { useSessionStore } from '../stores/session.ts';
import { useTeamsStore } from '../stores/teams.ts';
import { useTeamSigner } from './useTeamSigner.ts';

export function useDocs(): (id?: string | null) => DocsClient {
  const session = useSessionStore();
  const teams = useTeamsStore();
  const signer = useTeamSigner('docs');
  return (id = teams.teamId) =>
    new DocsClient({
      docsUrl: session.info?.docs_url || session.api().coreUrl,
      teamId: id ?? '',
      fetch: (input, init) => window.fetch(input, init),
      sign: signer(id),
    });
}
