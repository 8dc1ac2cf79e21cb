/**
 * The owner API's own routes (`/v1/node/...`, loopback listener only): a fresh sign-in link, what
 * the node is, its projects and the owner's consent to a namespace. Signing in and the browser
 * sessions: sessions.ts. Every route but `POST /v1/node/session` needs an owner credential.
 */
import { z } from 'zod';
import { domainName, projectSlug } from './fields.ts';

/** `POST /v1/node/ui-link`: a fresh one-time link that opens the UI in a browser. */
export const UiLink = z.object({ ui_url: z.string() });
export type UiLink = z.output<typeof UiLink>;

/** `GET /v1/node/info`. */
export const NodeInfo = z.object({
  node_id: z.string(),
  version: z.string(),
  core_url: z.string(),
  library_url: z.string(),
  docs_url: z.string(),
  ui_url: z.string(),
  /** The peer listener's (or the tunnel's) origin, when there is one. */
  public_url: z.string().nullable(),
  data_dir: z.string(),
  /** `safe-storage`, `keyring`, `passphrase` or `key-file`. */
  custody_backend: z.string(),
});
export type NodeInfo = z.output<typeof NodeInfo>;

export const CreateProjectBody = z.strictObject({
  slug: projectSlug,
  name: z.string().min(1).max(128).optional(),
  /** A namespace whose controller key this node holds: the project's persistent identities get addresses under it. */
  namespace: domainName.optional(),
});
export type CreateProjectInput = z.input<typeof CreateProjectBody>;

export const Project = z.object({
  project_id: z.string(),
  slug: z.string(),
  name: z.string(),
  namespace: z.string().nullable(),
  created_at: z.string(),
});
export type Project = z.output<typeof Project>;

/** A project in the owner's list, with how many identities it holds. */
export const ProjectListItem = Project.extend({ identity_count: z.number().int() });
export type ProjectListItem = z.output<typeof ProjectListItem>;

export const ProjectList = z.object({ projects: z.array(ProjectListItem) });

/** `POST /v1/node/projects`: the project-authority key is shown once. */
export const CreatedProject = Project.extend({ api_key: z.string() });
export type CreatedProject = z.output<typeof CreatedProject>;

/** `POST /v1/node/namespaces`: the owner's consent to a namespace on this node. */
export const CreateNamespaceBody = z.strictObject({
  domain: domainName,
  /** An outside controller's did:key; absent: the node creates one in custody. */
  controller_did: z.string().min(1).max(128).optional(),
});
export type CreateNamespaceInput = z.input<typeof CreateNamespaceBody>;
