/**
 * The `projects` table. The only module that reads or writes it; the owner's list counts each
 * project's live identities with a join on `agents`.
 */
import type { Db } from '../../../context.ts';
import type { Project, ProjectListItem } from '../../../../contract/node/owner.ts';

/** The table's columns, which are also the wire shape. */
export type ProjectRow = Project;

export function findProject(db: Db, projectId: string): ProjectRow | undefined {
  return db.prepare(`SELECT * FROM projects WHERE project_id = ?`).get(projectId) as ProjectRow | undefined;
}

/** Every project, oldest first, with how many identities (not deleted) it holds. */
export function listProjects(db: Db): ProjectListItem[] {
  return db
    .prepare(
      `SELECT p.*, (SELECT COUNT(*) FROM agents a WHERE a.project_id = p.project_id AND a.status <> 'deleted') AS identity_count
       FROM projects p ORDER BY p.created_at`,
    )
    .all() as ProjectListItem[];
}

export function projectSlugTaken(db: Db, slug: string): boolean {
  return db.prepare(`SELECT 1 FROM projects WHERE slug = ?`).get(slug) !== undefined;
}

export function insertProject(db: Db, row: ProjectRow): void {
  db.prepare(`INSERT INTO projects (project_id, slug, name, namespace, created_at) VALUES (@project_id, @slug, @name, @namespace, @created_at)`).run(row);
}
