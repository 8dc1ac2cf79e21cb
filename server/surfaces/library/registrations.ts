/**
 * POST /v1/team/register (research A4): a team's public owner and display name in the catalog.
 * Idempotent and first-write-wins per field, so registering again never rewrites what others
 * already see. Publishing registers a team implicitly, with neither field set.
 */
import type { RegisterInput, Registration } from '../../../contract/library/shelf.ts';
import type { NodeContext } from '../../context.ts';

export class TeamRegistrations {
  readonly #ctx: NodeContext;

  constructor(ctx: NodeContext) {
    this.#ctx = ctx;
  }

  register(teamId: string, input: RegisterInput): Registration {
    const { db, clock } = this.#ctx;
    db.prepare(`INSERT INTO library_teams (team_id, owner, display_name, registered_at) VALUES (?, ?, ?, ?) 
       ON CONFLICT (team_id) DO UPDATE SET owner = coalesce(owner, excluded.owner), display_name = coalesce(display_name, excluded.display_name)`).run(
      teamId,
      input.owner ?? null,
      input.display_name ?? null,
      clock.now().toISOString(),
    );
    return db.prepare(`SELECT team_id, owner, display_name, registered_at FROM library_teams WHERE team_id = ?`).get(teamId) as Registration;
  }
}
