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
import { findProject, insertProject, listProjects, projectSlugTaken } from './store.ts';
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
    const row = findProject(this.#ctx.db, projectId);
    if (!row) throw notFound('SVC_ERR_PROJECT_NOT_FOUND', 'Project not found');
    return row;
  }

  list(): ProjectListItem[] {
    return listProjects(this.#ctx.db);
  }

  /** Creates a project and its first project-authority key (returned once). */
  create(input: { slug: string; name?: string | undefined; namespace?: string | undefined }): CreatedProject {
    if (!PROJECT_SLUG.test(input.slug)) throw invalid('SVC_ERR_PROJECT_SLUG_INVALID', 'slug must be 1-64 letters, digits, ".", "-" or "_"');
    if (input.namespace !== undefined && this.#namespaces.controllerKeyId(input.namespace) === null) {
      throw invalid('SVC_ERR_PROJECT_NAMESPACE_NOT_HELD', `namespace ${input.namespace} is not controlled by this node`);
    }
    const db = this.#ctx.db;
    const now = this.#ctx.clock.now().toISOString();
    const projectId = randomUUID();
    return db.transaction(() => {
      if (projectSlugTaken(db, input.slug)) throw conflict('SVC_ERR_PROJECT_SLUG_TAKEN', `Project ${input.slug} already exists`);
      insertProject(db, { project_id: projectId, slug: input.slug, name: input.name ?? input.slug, namespace: input.namespace ?? null, created_at: now });
      const { apiKey } = issueApiKey(db, projectId, null, now);
      return { ...this.get(projectId), api_key: apiKey };
    })();
  }
}
