/**
 * The document surface (spec §4.7) for one team of this node: versioned Markdown documents,
 * templates, present links, the theme, assets and billing. Every call is a team-signed request
 * (team-request.ts) addressed to the docs origin; appends send raw `text/markdown`, not JSON.
 */
import type { FetchLike } from './client.ts';
import { query, sendSigned, trimSlash, type Method, type RequestBody, type TeamSigner } from './team-request.ts';

// ---------------------------------------------------------------------------------------------
// Wire types
// ---------------------------------------------------------------------------------------------

export type VersionSource = 'api' | 'template' | 'present-link';

export interface DocumentSummary {
  document_id: string;
  slug: string;
  title: string;
  current_version: number;
  updated_at: string;
  created_at: string;
}

/** The identity of this node the app acted as when it saved (recorded by the node). */
export interface ActingAs {
  agent_id: string;
  alias: string;
  name: string;
  address: string | null;
}

/**
 * Who made a version: an identity the app acted as, a team member (an agent, by its certificate),
 * or a visitor through an editable link (`name` null when they typed none).
 */
export interface VersionAuthor {
  kind: 'identity' | 'member' | 'link-editor';
  name: string | null;
  address: string | null;
}

/** `GET /v1/documents?limit&after&q`: one page, newest first, and how many match in all. */
export interface DocumentPage {
  documents: DocumentSummary[];
  has_more: boolean;
  next_after: string | null;
  total: number;
}

/** One version's metadata; `body` only when a single version is read. */
export interface DocumentVersion {
  version_id: string;
  version_number: number;
  body: string | null;
  source: VersionSource;
  body_sha256: string;
  created_by_alias: string | null;
  created_by_address: string | null;
  created_by_editor_name: string | null;
  created_at: string;
  /** Absent from nodes older than issue 14. */
  acting_as?: ActingAs | null;
  author?: VersionAuthor;
}

export interface DocumentDetail extends DocumentSummary {
  body: string;
  latest: DocumentVersion;
}

export type SlotName = 'cover' | 'metrics' | 'sections' | 'ask';

export interface TemplateSummary {
  name: string;
  description: string;
  slots: SlotName[];
  required_slots: SlotName[];
}

/** The node's slot limits: maximum characters per field and entries per list. */
export interface TemplateLimits {
  title: number;
  subtitle: number;
  eyebrow: number;
  sections: number;
  heading: number;
  sectionBody: number;
  metrics: number;
  label: number;
  value: number;
  caption: number;
  headline: number;
  askBody: number;
  items: number;
  item: number;
}

export interface TemplateDetail extends TemplateSummary {
  example: { name: string; slots: Record<string, unknown> };
  example_markdown: string;
}

export interface TemplateRequest {
  name: string;
  slots: Record<string, unknown>;
}

export type CreateDocumentInput = { slug: string; title: string } & ({ body: string } | { template: TemplateRequest });

export interface MintInput {
  slug: string;
  /** Pins the link to this version; the latest when absent. */
  version?: number;
  ttl_seconds?: number;
  editable?: boolean;
}

export interface MintedLink {
  token: string;
  url: string;
  link_id: string;
  slug: string;
  version: number;
  editable: boolean;
  ttl_seconds: number;
  expires_at: string;
}

/** A link as listed: never its token (its address is shown once, when made). */
export interface PresentLinkSummary {
  link_id: string;
  slug: string;
  version: number;
  editable: boolean;
  expires_at: string;
  revoked_at: string | null;
  created_by_alias: string;
  created_at: string;
}

export const COLOR_TOKENS = ['background', 'surface', 'text', 'muted', 'border', 'accent'] as const;
export type ColorToken = (typeof COLOR_TOKENS)[number];
export type FontName = 'system' | 'serif' | 'mono';

export interface ThemeTokens {
  colors?: Partial<Record<ColorToken, string>>;
  fonts?: { body?: FontName; heading?: FontName };
  layout?: { mode?: 'document' | 'presentation'; measure?: 'narrow' | 'default' | 'wide'; color_scheme?: 'light' | 'dark' | 'auto' };
}

export interface Theme {
  tokens: ThemeTokens;
  preset: string | null;
  logo_asset_id: string | null;
  logo_url: string | null;
  header: string | null;
  footer: string | null;
  updated_at: string | null;
}

/** `PUT /v1/theme`: tokens, preset, header and footer are replaced; the logo stays unless changed. */
export interface ThemeInput {
  tokens?: ThemeTokens;
  preset?: string | null;
  header?: string | null;
  footer?: string | null;
  logo?: { content_type: string; data_base64: string };
  clear_logo?: boolean;
}

export type TextRole = 'text' | 'muted' | 'link' | 'code';

/** One text colour the page paints, on what it is painted on; `ratio` null when either has alpha. */
export interface ContrastCheck {
  role: TextRole;
  label: string;
  foreground: string;
  on: string;
  background: string;
  ratio: number | null;
  passes: boolean;
}

/**
 * One palette's contrast: `text`/`surface`/`ratio`/`passes` are text on surface; `checks` every
 * text colour the page paints (absent from nodes older than issue 14).
 */
export interface PaletteContrast {
  palette: 'light' | 'dark';
  text: string;
  surface: string;
  ratio: number | null;
  passes: boolean;
  checks?: ContrastCheck[];
}

export type Palette = Record<ColorToken, string>;

/** `POST /v1/present/preview`: the whole present page, its contrast against WCAG AA, and the palettes unset colours fall back to. */
export interface Preview {
  html: string;
  contrast: PaletteContrast[];
  base_palettes: { light: Palette; dark: Palette };
}

export interface Asset {
  asset_id: string;
  kind: 'image' | 'video';
  url: string;
  content_type: string;
  bytes: number;
  status: string;
  created_at: string;
}

export interface Billing {
  team_id: string;
  tier: string;
  /** `max_asset_bytes` is the team's asset storage quota (always set; 2 GiB unless the owner changes it). */
  caps: { max_documents: number | null; max_versions_per_doc: number | null; max_asset_bytes: number };
  /** `asset_bytes`: images, videos and uploads in progress. */
  usage: { documents: number; max_versions_per_doc: number; asset_bytes: number };
}

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

  /** A new version from raw Markdown (the body is sent as it is, `text/markdown`). */
  append(slug: string, markdown: string): Promise<DocumentDetail> {
    return this.#call('POST', `/v1/documents/${part(slug)}/versions`, { text: markdown, contentType: MARKDOWN });
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
  templates(): Promise<{ templates: TemplateSummary[]; limits: TemplateLimits }> {
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
  preview(body: string, theme?: Omit<ThemeInput, 'logo'>): Promise<Preview> {
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
