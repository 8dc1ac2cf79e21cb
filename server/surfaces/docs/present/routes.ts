/**
 * Present links (spec §4.7; docs/adr/0006-library-and-document-surfaces.md).
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
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  DraftPreviewBody,
  LinkEditBody,
  LinkPreview,
  LinkPreviewBody,
  LinkRevoked,
  LinkVersion,
  MintBody,
  MintedLink,
  PresentLinkList,
  Preview,
  TokenParams,
} from '../../../../contract/docs/present.ts';
import { notFound } from '../../../errors.ts';
import { editorPage } from './page/editor.ts';
import { notFoundPage, readPage, type PresentTheme } from './page/page.ts';
import type { ResolvedLink } from './store.ts';
import { renderMarkdownLazily } from '../../../markdown/lazy.ts';
import { memberOf } from '../../../http/route-scope.ts';
import { actingAsOf } from '../../../teams/acting-as.ts';
import { team, type DocsRouteOptions } from '../route-options.ts';

export const EDIT_REFUSED = 'This link no longer accepts edits (it expired or was revoked); nothing was saved';

const tags = ['present'];

const READ_CSP =
  "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; script-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
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
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.post(
    '/v1/present',
    {
      config: { ...team('docs:write'), answerHoldsSecret: true },
      schema: { tags, summary: 'Mints a present link (its token is shown this once)', body: MintBody, response: { 201: MintedLink } },
    },
    async (request, reply) => {
      const member = memberOf(request);
      return reply.code(201).send(services.present.mint(member, request.body, actingAsOf(request, member, services.ownerCertificateOf)));
    },
  );

  api.post(
    '/v1/present/:token/revoke',
    {
      config: team('docs:write'),
      schema: { tags, summary: 'Revokes a link, by its token or its link_id; idempotent', params: TokenParams, response: { 200: LinkRevoked } },
    },
    async (request) => services.present.revoke(memberOf(request).team_id, request.params.token),
  );

  api.get(
    '/v1/present',
    { config: team('docs:read'), schema: { tags, summary: 'The team’s present links, newest first, never their tokens', response: { 200: PresentLinkList } } },
    async (request) => services.present.list(memberOf(request).team_id),
  );

  /*
   * Ours: a document (saved or not) as its present page would show it, for editors' live preview,
   * with a theme being edited, its contrast against AA and the base palettes unset colours use. The page is the same HTML a link serves;
   * image URLs are absolute on the docs origin because the preview is shown away from this origin.
   */
  api.post(
    '/v1/present/preview',
    {
      config: team('docs:read'),
      schema: {
        tags,
        summary: 'A body as its present page would show it, with the saved theme or one being edited',
        body: DraftPreviewBody,
        response: { 200: Preview },
      },
    },
    async (request) => {
      const teamId = memberOf(request).team_id;
      const input = request.body;
      const { theme, contrast, base_palettes } = services.theme.preview(teamId, input.theme);
      const { assets, urls } = services;
      const html = await renderMarkdownLazily(input.body, { assetIds: assets.assetIdsOf(teamId), assetUrl: urls.asset }, request.listener);
      return { html: readPage(html, theme, 'Preview', urls.origin()), contrast, base_palettes };
    },
  );
}

/**
 * Public: the token is the capability. The page answers HTML (no JSON schema); the editable
 * link's JSON routes resolve their link in preValidation, before their body is validated, so an
 * unknown, expired or revoked token is the same 404 whatever was sent, with the private headers.
 */
export async function presentPageRoutes(app: FastifyInstance, { services }: DocsRouteOptions): Promise<void> {
  const { present } = services;
  const api = app.withTypeProvider<ZodTypeProvider>();
  const themeOf = (link: ResolvedLink): PresentTheme | null => services.themeFor(link.team_id);
  // Only the team's own images resolve on its pages, served same-origin from /assets/.
  const assetOptions = (teamId: string) => ({ assetIds: services.assets.assetIdsOf(teamId), assetUrl: (id: string) => `/assets/${id}` });

  /** The editable link each request resolved in its preValidation hook. */
  const links = new WeakMap<FastifyRequest, ResolvedLink>();

  /** The valid editable link behind the path's token, else a plain 404 (read links included). */
  const editable =
    (detail = 'Not found') =>
    async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
      privateHeaders(reply);
      const link = present.resolve(tokenOf(request.params));
      if (!link || !link.editable) throw notFound('SVC_ERR_PRESENT_LINK_NOT_FOUND', detail);
      links.set(request, link);
    };
  const linkOf = (request: FastifyRequest): ResolvedLink => {
    const link = links.get(request);
    if (!link) throw notFound('SVC_ERR_PRESENT_LINK_NOT_FOUND', 'Not found');
    return link;
  };

  api.get(
    '/present/:token',
    { config: { auth: 'public' }, schema: { tags, summary: 'The present page (HTML): read-only, or the editor of an editable link', params: TokenParams } },
    async (request, reply) => {
      privateHeaders(reply);
      const link = present.resolve(request.params.token);
      if (!link) {
        return reply.code(404).header('content-security-policy', READ_CSP).type('text/html; charset=utf-8').send(notFoundPage());
      }
      if (!link.editable) {
        return reply
          .header('content-security-policy', READ_CSP)
          .type('text/html; charset=utf-8')
          .send(await services.pages.readPage(link, request.listener));
      }
      const latest = present.latest(link);
      const nonce = randomBytes(16).toString('base64');
      return reply
        .header('content-security-policy', editorCsp(nonce))
        .type('text/html; charset=utf-8')
        .send(editorPage({ body: latest.body, version: latest.current_version, title: latest.title, theme: themeOf(link), nonce }));
    },
  );

  api.get(
    '/present/:token/state',
    {
      config: { auth: 'public' },
      preValidation: editable(),
      schema: { tags, summary: 'An editable link’s latest version', params: TokenParams, response: { 200: LinkVersion } },
    },
    async (request) => ({ version_number: present.latest(linkOf(request)).current_version }),
  );

  api.post(
    '/present/:token/preview',
    {
      config: { auth: 'public' },
      preValidation: editable(),
      schema: {
        tags,
        summary: 'An editable link’s preview of what its visitor types',
        params: TokenParams,
        body: LinkPreviewBody,
        response: { 200: LinkPreview },
      },
    },
    async (request) => ({ html: await renderMarkdownLazily(request.body.body, assetOptions(linkOf(request).team_id), request.listener) }),
  );

  api.post(
    '/present/:token/edit',
    {
      config: { auth: 'public' },
      // An open editor shows this on save once the link expired or was revoked (also when its
      // minter's certificate was); the same words for every token, so it tells a guesser nothing.
      preValidation: editable(EDIT_REFUSED),
      schema: {
        tags,
        summary: 'Saves a version through an editable link, over base_version (409 with the latest otherwise)',
        params: TokenParams,
        body: LinkEditBody,
        response: { 200: LinkVersion },
      },
    },
    async (request) => present.edit(linkOf(request), request.body.body, request.body.base_version, request.body.editor_name),
  );
}
