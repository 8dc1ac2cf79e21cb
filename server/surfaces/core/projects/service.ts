/**
 * Projects scope identities: aliases are unique inside one, and each has project-authority keys
 * that may create identities in it. A project may own a node-controlled namespace, under which
 * its persistent identities get their addresses.
 */
import { randomUUID } from 'node:crypto';
import { issueApiKey } from '../../../auth/api-keys.ts';
import type { NodeContext } from '../../../context.ts';
import { conflict, invalid, notFound } from '../../../errors.ts';
import type { NamespaceService } from '../namespaces/service.ts';
import { PROJECT_SLUG } from '../../../../contract/core-rules.ts';
import type { CreatedProject, Project, ProjectListItem } from '../../../../contract/node/owner.ts';

export class ProjectService {
  readonly #ctx: NodeContext;
  readonly #namespaces: NamespaceService;

  constructor(ctx: NodeContext, namespaces: NamespaceService) {
    this.#ctx = ctx;
    this.#namespaces = namespaces;
  }

  get(projectId: string): Project {
    const row = this.#ctx.db.prepare(`SELECT * FROM projects WHERE project_id = ?`).get(projectId) as Project | undefined;
    if (!row) throw notFound('Project not found');
    return row;
  }

  list(): ProjectListItem[] {
    return this.#ctx.db
      .prepare(
        `SELECT p.*, (SELECT COUNT(*) FROM agents a WHERE a.project_id = p.project_id AND a.status <> 'deleted') AS identity_count
         FROM projects p ORDER BY p.created_at`,
      )
      .all() as ProjectListItem[];
  }

  /** Creates a project and its first project-authority key (returned once). */
  create(input: { slug: string; name?: string | undefined; namespace?: string | undefined }): CreatedProject {
    if (!PROJECT_SLUG.test(input.slug)) throw invalid('slug must be 1-64 letters, digits, ".", "-" or "_"');
    if (input.namespace !== undefined && this.#namespaces.controllerKeyId(input.namespace) === null) {
      throw invalid(`namespace ${input.namespace} is not controlled by this node`);
    }
    const db = this.#ctx.db;
    const now = this.#ctx.clock.now().toISOString();
    const projectId = randomUUID();
    return db.transaction(() => {
      if (db.prepare(`SELECT 1 FROM projects WHERE slug = ?`).get(input.slug)) throw conflict(`Project ${input.slug} already exists`);
      db.prepare(`INSERT INTO projects (project_id, slug, name, namespace, created_at) VALUES (?, ?, ?, ?, ?)`).run(
        projectId,
        input.slug,
        input.name ?? input.slug,
        input.namespace ?? null,
        now,
      );
      const { apiKey } = issueApiKey(db, projectId, null, now);
      return { ...this.get(projectId), api_key: apiKey };
    })();
  }
}
