/**
 * The document surface (spec §4.7) for one team of this node: versioned Markdown documents,
 * templates, present links, the theme, assets and billing. Every call is a team-signed request
 * (team-request.ts) addressed to the docs origin; appends send raw `text/markdown`, not JSON.
 */
import type { Asset } from '../../../contract/docs/assets.ts';
import type { Billing } from '../../../contract/docs/billing.ts';
import type { CreateDocumentInput, DocumentDetail, DocumentPage, DocumentSaved, DocumentSummary, DocumentVersion } from '../../../contract/docs/documents.ts';
import type { MintedLink, MintInput, PresentLinkSummary, Preview } from '../../../contract/docs/present.ts';
import type { TemplateDetail, TemplateList, TemplateRequest } from '../../../contract/docs/templates.ts';
import type { Theme, ThemeDraft, ThemeInput } from '../../../contract/docs/theme.ts';
import { query, trimSlash } from './http.ts';
import type { FetchLike } from './sse.ts';
import { sendSigned, type Method, type RequestBody, type TeamSigner } from './team-request.ts';

// ---------------------------------------------------------------------------------------------
// Wire types: the contract's (contract/docs/), imported as types only so zod stays out of the
// bundle; re-exported here for the stores, components and lib/ that read them.
// ---------------------------------------------------------------------------------------------

export type { Asset, Billing, CreateDocumentInput, DocumentDetail, DocumentPage, DocumentSaved, DocumentSummary, DocumentVersion };
export type { ActingAs, VersionAuthorView, VersionSource } from '../../../contract/docs/documents.ts';
export type { MintedLink, MintInput, PresentLinkSummary, Preview };
export type { TemplateDetail, TemplateLimits, TemplateList, TemplateRequest, TemplateSummary } from '../../../contract/docs/templates.ts';
export type { ContrastCheck, Palette, PaletteContrast, Theme, ThemeDraft, ThemeInput, ThemeTokens } from '../../../contract/docs/theme.ts';
export type { FontName, SlotName, TextRole } from '../../../contract/docs/rules.ts';
/** The theme's colour tokens (the contract's COLOR_KEYS; rules.ts has no zod, so the value may be bundled). */
export { COLOR_KEYS as COLOR_TOKENS, type ColorKey as ColorToken } from '../../../contract/docs/rules.ts';

// ---------------------------------------------------------------------------------------------
// Client
// ---------------------------------------------------------------------------------------------

const part = encodeURIComponent;
const MARKDOWN = 'text/markdown; charset=utf-8';

/** The document surface for one team of this node. */
export class DocsClient {
  readonly docsUrl: string;
  readonly teamId: string;
  readonly #fetch: FetchLike;
  readonly #sign: TeamSigner;

  constructor(options: { docsUrl: string; teamId: string; fetch: FetchLike; sign: TeamSigner }) {
    this.docsUrl = trimSlash(options.docsUrl);
    this.teamId = options.teamId;
    this.#fetch = options.fetch;
    this.#sign = options.sign;
  }

  #call<T>(method: Method, path: string, body?: RequestBody): Promise<T> {
    return sendSigned<T>(this.#fetch, this.#sign, method, path, body);
  }

  // -------------------------------------------------------------- documents

  /** Most recently changed first. */
  list(): Promise<DocumentSummary[]> {
    return this.#call('GET', '/v1/documents');
  }

  /** One page of the list, after the previous page's `next_after`; `q` matches title or slug. */
  page(input: { limit: number; after?: string | null; q?: string }): Promise<DocumentPage> {
    const q = input.q?.trim() || undefined;
    return this.#call('GET', `/v1/documents${query({ limit: String(input.limit), after: input.after ?? undefined, q })}`);
  }

  get(slug: string): Promise<DocumentDetail> {
    return this.#call('GET', `/v1/documents/${part(slug)}`);
  }

  create(input: CreateDocumentInput): Promise<DocumentDetail> {
    return this.#call('POST', '/v1/documents', { json: input });
  }

  /**
   * A new version from raw Markdown (the body is sent as it is, `text/markdown`), written over
   * `baseVersion`: a version saved meanwhile makes the node refuse it (409
   * SVC_ERR_DOCUMENT_VERSION_STALE) rather than replace that change; the latest text again makes
   * none (`unchanged`).
   */
  append(slug: string, markdown: string, baseVersion: number): Promise<DocumentSaved> {
    return this.#call('POST', `/v1/documents/${part(slug)}/versions${query({ base_version: baseVersion })}`, { text: markdown, contentType: MARKDOWN });
  }

  appendTemplate(slug: string, template: TemplateRequest): Promise<DocumentDetail> {
    return this.#call('POST', `/v1/documents/${part(slug)}/versions/template`, { json: template });
  }

  /** Every version's metadata (no bodies), newest first. */
  versions(slug: string): Promise<DocumentVersion[]> {
    return this.#call('GET', `/v1/documents/${part(slug)}/versions`);
  }

  /** One version with its body. */
  version(slug: string, n: number): Promise<DocumentVersion> {
    return this.#call('GET', `/v1/documents/${part(slug)}/versions/${n}`);
  }

  // -------------------------------------------------------------- templates

  /** The built-in templates and the limits their slots share. */
  templates(): Promise<TemplateList> {
    return this.#call('GET', '/v1/templates');
  }

  template(name: string): Promise<TemplateDetail> {
    return this.#call('GET', `/v1/templates/${part(name)}`);
  }

  // -------------------------------------------------------------- present links and preview

  mint(input: MintInput): Promise<MintedLink> {
    return this.#call('POST', '/v1/present', { json: input });
  }

  /** By the link's token or its link_id. */
  revoke(tokenOrLinkId: string): Promise<{ revoked: true }> {
    return this.#call('POST', `/v1/present/${part(tokenOrLinkId)}/revoke`);
  }

  /** Newest first, without tokens. */
  links(): Promise<PresentLinkSummary[]> {
    return this.#call('GET', '/v1/present');
  }

  /** A body as its present page would show it, with the saved theme or `theme` (unsaved). */
  preview(body: string, theme?: ThemeDraft): Promise<Preview> {
    return this.#call('POST', '/v1/present/preview', { json: theme === undefined ? { body } : { body, theme } });
  }

  // -------------------------------------------------------------- theme, assets, billing

  theme(): Promise<Theme> {
    return this.#call('GET', '/v1/theme');
  }

  putTheme(input: ThemeInput): Promise<Theme> {
    return this.#call('PUT', '/v1/theme', { json: input });
  }

  uploadImage(contentType: string, dataBase64: string): Promise<Asset> {
    return this.#call('POST', '/v1/assets', { json: { content_type: contentType, data_base64: dataBase64 } });
  }

  billing(): Promise<Billing> {
    return this.#call('GET', '/v1/billing');
  }
}
