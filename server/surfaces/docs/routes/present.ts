/**
 * Present links (spec §4.7; research B4).
 *
 * `presentApiRoutes` (behind team auth): mint (`POST /v1/present`, docs:write), revoke
 * (`POST /v1/present/{token}/revoke`, docs:write) and, ours, list (`GET /v1/present`, docs:read,
 * never the tokens).
 *
 * `presentPageRoutes` (public: the token is the capability): `GET /present/{token}`, the page,
 * and for editable links `GET .../state`, `POST .../preview` and `POST .../edit`. Unknown,
 * expired and revoked tokens get the same small 404 page, which says nothing about the link.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { notFound } from '../../../errors.ts';
import { parseWith } from '../../../http/validate.ts';
import { editorPage } from '../present-page/editor.ts';
import { notFoundPage, readPage, type PresentTheme } from '../present-page/page.ts';
import { EDITOR_NAME_MAX, type ResolvedLink } from '../present.ts';
import { renderMarkdownLazily } from '../render/lazy.ts';
import { SLUG_MAX, SLUG_PATTERN } from '../schemas.ts';
import { memberWith, type DocsRouteOptions } from './options.ts';
import { ThemeBody } from './theme.ts';

export const PREVIEW_MAX_CHARS = 200_000;
export const EDIT_REFUSED = 'This link no longer accepts edits (it expired or was revoked); nothing was saved';

const MintBody = z.strictObject({
  slug: z.string().max(SLUG_MAX).regex(SLUG_PATTERN, 'must be a document slug'),
  version: z.number().int().min(1).max(1_000_000_000).optional(),
  ttl_seconds: z.number().int().min(1).max(1_000_000_000).optional(),
  editable: z.boolean().optional(),
});

const EditBody = z.strictObject({
  body: z.string(),
  base_version: z.number().int().min(1).max(1_000_000_000),
  editor_name: z.string().max(EDITOR_NAME_MAX).optional(),
});

const PreviewBody = z.strictObject({ body: z.string().max(PREVIEW_MAX_CHARS) });

/** The owner's editor preview: any document size, and optionally a theme being edited. */
const DraftPreviewBody = z.strictObject({ body: z.string(), theme: z.strictObject(ThemeBody.omit({ logo: true }).shape).optional() });

const READ_CSP = "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; script-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
const editorCsp = (nonce: string) =>
  `default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; script-src 'nonce-${nonce}'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

/** Everything under /present/* is private, uncached and unindexed. */
function privateHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('x-robots-tag', 'noindex, nofollow, noarchive')
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', 'no-store');
}


const tokenOf = (params: unknown): string => {
  const token = (params as { token?: unknown }).token;
  return typeof token === 'string' ? token : '';
};

export async function presentApiRoutes(app: FastifyInstance, { services }: DocsRouteOptions): Promise<void> {
  app.post('/v1/present', async (request, reply) => {
    const member = memberWith(request, 'docs:write');
    const input = parseWith(MintBody, request.body);
    return reply.code(201).send(services.present.mint(member, input));
  });

  app.post('/v1/present/:token/revoke', async (request) => {
    const member = memberWith(request, 'docs:write');
    return services.present.revoke(member.team_id, tokenOf(request.params));
  });

  app.get('/v1/present', async (request) => services.present.list(memberWith(request, 'docs:read').team_id));

  /*
   * Ours: a document (saved or not) as its present page would show it, for editors' live preview,
   * with a theme being edited, its contrast against AA and the base palettes unset colours use. The page is the same HTML a link serves;
   * image URLs are absolute on the docs origin because the preview is shown away from this origin.
   */
  app.post('/v1/present/preview', async (request) => {
    const teamId = memberWith(request, 'docs:read').team_id;
    const input = parseWith(DraftPreviewBody, request.body);
    const { theme, contrast, base_palettes } = services.theme.preview(teamId, input.theme);
    const { assets } = services;
    const html = await renderMarkdownLazily(input.body, { assetIds: assets.assetIdsOf(teamId), assetUrl: (id) => assets.urlOf(id) }, request.listener);
    return { html: readPage(html, theme, 'Preview', assets.origin), contrast, base_palettes };
  });
}

export async function presentPageRoutes(app: FastifyInstance, { services }: DocsRouteOptions): Promise<void> {
  const { present } = services;
  const themeOf = (link: ResolvedLink): PresentTheme | null => services.themeFor(link.team_id);
  // Only the team's own images resolve on its pages, served same-origin from /assets/.
  const assetOptions = (teamId: string) => ({ assetIds: services.assets.assetIdsOf(teamId), assetUrl: (id: string) => `/assets/${id}` });

  /** The valid editable link behind the path's token, else a plain 404 (read links included). */
  const editable = (params: unknown, detail = 'Not found'): ResolvedLink => {
    const link = present.resolve(tokenOf(params));
    if (!link || !link.editable) throw notFound(detail);
    return link;
  };

  app.get('/present/:token', async (request, reply) => {
    privateHeaders(reply);
    const link = present.resolve(tokenOf(request.params));
    if (!link) {
      return reply.code(404).header('content-security-policy', READ_CSP).type('text/html; charset=utf-8').send(notFoundPage());
    }
    if (!link.editable) {
      return reply.header('content-security-policy', READ_CSP).type('text/html; charset=utf-8').send(await services.pages.readPage(link, request.listener));
    }
    const latest = present.latest(link);
    const nonce = randomBytes(16).toString('base64');
    return reply
      .header('content-security-policy', editorCsp(nonce))
      .type('text/html; charset=utf-8')
      .send(editorPage({ body: latest.body, version: latest.current_version, title: latest.title, theme: themeOf(link), nonce }));
  });

  app.get('/present/:token/state', async (request, reply) => {
    privateHeaders(reply);
    const link = editable(request.params);
    return { version_number: present.latest(link).current_version };
  });

  app.post('/present/:token/preview', async (request, reply) => {
    privateHeaders(reply);
    const link = editable(request.params);
    const { body } = parseWith(PreviewBody, request.body);
    return { html: await renderMarkdownLazily(body, assetOptions(link.team_id), request.listener) };
  });

  app.post('/present/:token/edit', async (request, reply) => {
    privateHeaders(reply);
    // An open editor shows this on save once the link expired or was revoked (also when its
    // minter's certificate was); the same words for every token, so it tells a guesser nothing.
    const link = editable(request.params, EDIT_REFUSED);
    const input = parseWith(EditBody, request.body);
    return present.edit(link, input.body, input.base_version, input.editor_name);
  });
}
