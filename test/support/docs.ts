/**
 * Document-surface clients for API tests: team members (test/support/teams.ts) whose signed
 * envelopes name the docs surface's origin, with shorthands for the common calls.
 */
import type { ApiResponse, NodeEndpoint } from './node.ts';
import { addTeamMember, type AddTeamMemberOptions, type TeamClient, type TeamRequestOptions } from './teams.ts';

export const MARKDOWN = 'text/markdown; charset=utf-8';

export interface DocsClient {
  member: TeamClient;
  teamId: string;
  request<T = any>(method: string, path: string, options?: TeamRequestOptions): Promise<ApiResponse<T>>;
  /** POST /v1/documents with a raw Markdown body. */
  create(slug: string, body: string, title?: string): Promise<ApiResponse>;
  /** POST /v1/documents from a template. */
  createFromTemplate(slug: string, template: { name: string; slots?: Record<string, unknown> }, title?: string): Promise<ApiResponse>;
  /** POST /v1/documents/{slug}/versions with raw Markdown. */
  append(slug: string, body: string | Buffer, contentType?: string): Promise<ApiResponse>;
  appendTemplate(slug: string, template: { name: string; slots?: Record<string, unknown> }): Promise<ApiResponse>;
  get(slug: string): Promise<ApiResponse>;
}

export async function addDocsMember(t: NodeEndpoint, options: AddTeamMemberOptions = {}): Promise<DocsClient> {
  const member = await addTeamMember(t, options);
  const aud = t.info.docs_url;
  const request: DocsClient['request'] = (method, path, opts = {}) => member.request(method, path, { aud, ...opts });
  const slugPath = (slug: string) => `/v1/documents/${encodeURIComponent(slug)}`;
  return {
    member,
    teamId: member.teamId,
    request,
    create: (slug, body, title = `Title of ${slug}`) => request('POST', '/v1/documents', { body: { slug, title, body } }),
    createFromTemplate: (slug, template, title = `Title of ${slug}`) => request('POST', '/v1/documents', { body: { slug, title, template } }),
    append: (slug, body, contentType = MARKDOWN) => request('POST', `${slugPath(slug)}/versions`, { raw: body, contentType }),
    appendTemplate: (slug, template) => request('POST', `${slugPath(slug)}/versions/template`, { body: template }),
    get: (slug) => request('GET', slugPath(slug)),
  };
}

/** Sets the node's document caps through the owner API (null, null: none), and the asset quota when given (else the default). */
export async function setDocCaps(
  t: NodeEndpoint,
  caps: { max_documents: number | null; max_versions_per_doc: number | null; max_asset_bytes?: number },
): Promise<ApiResponse> {
  return t.owner('PUT', '/v1/node/docs/billing', { caps });
}
