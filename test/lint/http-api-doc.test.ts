/**
 * docs/http-api.md against the routes a real node registers: its closing index is what the node's
 * own API descriptions say (`npm run docs:routes` writes it), every route either listener
 * registers is on the page as `METHOD /path`, and every `METHOD /path` the page's prose names is a
 * route the node has, so a renamed or removed route cannot live on in the reference.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeIndex, withRouteIndex, END_MARKER, type ApiDocument } from '../../scripts/route-index.ts';
import { expectOk } from '../support/expect.ts';
import { codeSpans, proseLines } from '../support/markdown.ts';
import { startTestNode, type TestNode } from '../support/node.ts';

const doc = readFileSync(new URL('../../docs/http-api.md', import.meta.url), 'utf8');

/** Not the API: the UI's files and redirect, and the reference page's own assets. */
const NOT_API = /^\/(ui|docs\/api)(\/|$)|^\/$/;
const METHODS = 'GET|POST|PUT|PATCH|DELETE';

let t: TestNode;
const registered: { method: string; url: string }[] = [];

beforeAll(async () => {
  t = await startTestNode({ publicPort: 0, onRoute: (_listener, route) => void registered.push({ method: route.method, url: route.url }) });
});
afterAll(async () => {
  await t.stop();
});

/** A route as the page and the node can both spell it: parameters unnamed (`{}`), no trailing slash. */
function routeKey(method: string, path: string): string {
  const unnamed = path.replace(/:[A-Za-z_]\w*|\{[^}/]*\}/g, '{}');
  return `${method} ${unnamed.length > 1 ? unnamed.replace(/\/$/, '') : unnamed}`;
}

/**
 * The routes a code span such as `GET|POST /v1/x/{id}/archive|unarchive?limit` or `GET/PUT
 * /v1/theme` names: each method with each alternative of the path, query and body left out.
 */
function namedRoutes(span: string): string[] {
  const match = new RegExp(`^((?:${METHODS})(?:[|/](?:${METHODS}))*) (/[^\\s?[]*)`).exec(span);
  if (match === null) return [];
  const methods = (match[1] as string).split(/[|/]/);
  const paths = (match[2] as string)
    .split('/')
    .reduce<string[]>(
      (prefixes, segment, index) => prefixes.flatMap((prefix) => segment.split('|').map((part) => (index === 0 ? part : `${prefix}/${part}`))),
      [''],
    );
  return methods.flatMap((method) => paths.map((path) => routeKey(method, path)));
}

describe('docs/http-api.md', () => {
  it("ends with the index the node's own API descriptions make (run `npm run docs:routes` after changing a route)", async () => {
    const loopback = expectOk<ApiDocument>(await t.request('GET', '/openapi.json'));
    const peer = (await (await fetch(`${t.node.info.public_url as string}/openapi.json`)).json()) as ApiDocument;
    expect(withRouteIndex(doc, routeIndex(loopback, peer))).toBe(doc);
  });

  it('names every route either listener registers', () => {
    const api = registered.filter((route) => route.method !== 'HEAD' && !NOT_API.test(route.url));
    expect(api.length).toBeGreaterThan(100);
    const onPage = new Set(proseLines(doc).flatMap(({ text }) => codeSpans(text).flatMap(namedRoutes)));
    const missing = [...new Set(api.map((route) => routeKey(route.method, route.url)))].filter((key) => !onPage.has(key));
    expect(missing).toEqual([]);
  });

  it('names no route the node does not have', () => {
    const routes = new Set(registered.map((route) => routeKey(route.method, route.url)));
    const prose = doc.slice(0, doc.indexOf('## Every route'));
    expect(prose.length).toBeGreaterThan(10_000);
    const unknown = proseLines(prose).flatMap(({ line, text }) =>
      codeSpans(text)
        .flatMap(namedRoutes)
        .filter((key) => !routes.has(key))
        .map((key) => `line ${line}: ${key}`),
    );
    expect(unknown).toEqual([]);
  });

  it('reads the ways the page writes routes', () => {
    expect(namedRoutes('POST /api/v1/agents/{agent_id}/archive|replace')).toEqual(['POST /api/v1/agents/{}/archive', 'POST /api/v1/agents/{}/replace']);
    expect(namedRoutes('GET|POST /v1/chat/sessions/{id}/messages')).toEqual(['GET /v1/chat/sessions/{}/messages', 'POST /v1/chat/sessions/{}/messages']);
    expect(namedRoutes('GET/PUT /v1/theme')).toEqual(['GET /v1/theme', 'PUT /v1/theme']);
    expect(namedRoutes('GET /v1/blueprints/{ref}[?version=]')).toEqual(['GET /v1/blueprints/{}']);
    expect(namedRoutes('GET /v1/messages/inbox?limit&unread_only&before')).toEqual(['GET /v1/messages/inbox']);
    expect(namedRoutes('POST /v1/present {slug, version?, ttl_seconds?, editable?}')).toEqual(['POST /v1/present']);
    expect(namedRoutes('POST {node}/v1/federation/messages/batch')).toEqual([]);
    expect(doc).toContain(END_MARKER);
  });
});
