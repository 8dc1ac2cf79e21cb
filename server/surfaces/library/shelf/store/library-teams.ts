/**
 * The `library_teams` table: a team's public owner and display name in the catalog.
 * The catalog's version reads join it for the display name.
 */
import type { Db } from '../../../../context.ts';

export interface LibraryTeamRow {
  team_id: string;
  owner: string | null;
  display_name: string | null;
  registered_at: string;
}

/**
 * Registers the team, or fills in only the fields it still lacks (first write wins per field, so
 * registering again never rewrites what others already see); returns the row as it now is.
 */
export function registerLibraryTeam(db: Db, row: LibraryTeamRow): LibraryTeamRow {
  return db
    .prepare(
      `INSERT INTO library_teams (team_id, owner, display_name, registered_at) VALUES (@team_id, @owner, @display_name, @registered_at)
       ON CONFLICT (team_id) DO UPDATE SET owner = coalesce(owner, excluded.owner), display_name = coalesce(display_name, excluded.display_name)
       RETURNING team_id, owner, display_name, registered_at`,
    )
    .get(row) as LibraryTeamRow;
}
