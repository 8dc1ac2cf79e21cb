/**
 * POST /v1/team/register (upstream's): a team's public owner and display name in the catalog.
 * Idempotent and first-write-wins per field, so registering again never rewrites what others
 * already see. Publishing registers a team implicitly, with neither field set.
 */
import type { RegisterInput, Registration } from '../../../../contract/library/shelf.ts';
import type { NodeContext } from '../../../context.ts';
import { libraryChanged } from '../changes.ts';
import { registerLibraryTeam } from './store/library-teams.ts';

export class TeamRegistrations {
  readonly #ctx: NodeContext;

  constructor(ctx: NodeContext) {
    this.#ctx = ctx;
  }

  register(teamId: string, input: RegisterInput): Registration {
    const registration = registerLibraryTeam(this.#ctx.db, {
      team_id: teamId,
      owner: input.owner ?? null,
      display_name: input.display_name ?? null,
      registered_at: this.#ctx.clock.now().toISOString(),
    });
    libraryChanged(this.#ctx, teamId);
    return registration;
  }
}
