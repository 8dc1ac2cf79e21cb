/**
 * One template for every surface (ARCHITECTURE.md, "One template for every surface"), checked on
 * the tree under `server/surfaces/`, so a reader who knows one aggregate finds the parts of any
 * other in the same places:
 *
 * - A surface's root holds its plugin (`index.ts`, which registers its aggregates' routes and
 *   declares none itself), its container (`services.ts`), the pure rules its aggregates share
 *   (`domain/`), modules its aggregates share that are neither routes, nor a service, nor a store
 *   (the library's `changes.ts`), and one folder per aggregate. No `routes/` or `store/` folder,
 *   no `routes.ts`, `service.ts` or `store.ts` and no `*-routes.ts` or `*-store.ts` at the root:
 *   each of them belongs to an aggregate; and a class the container builds is a service, so it is
 *   never a module at the root either, unless it implements a port a lower layer declares (the
 *   core's side of federation's `FederationCore`): that class spans the surface's aggregates.
 * - An aggregate declares its routes in `routes.ts`, or in `routes/` when they are several plugins
 *   (the documents' JSON and raw Markdown routes). No other module declares a route.
 * - Its use cases are its `service.ts`: the class the container builds for it and its routes call.
 *   The modules that service delegates to, and any further service of the same aggregate, sit
 *   beside it under names of their own (mail's `folders.ts`, chat's `commands/` and `reads/`,
 *   identities' `backup.ts`, the assets' `video-uploads.ts`); never `services.ts`, `*-service.ts`
 *   or a `service/` folder inside an aggregate. An aggregate with routes and no `service.ts` calls
 *   a service that lives elsewhere, and is listed in ROUTES_ONLY with the one it calls.
 * - Its SQL is in `store.ts`, or in `store/` with one module per table (sql-in-stores.test.ts
 *   checks that no SQL is anywhere else); no `*-store.ts` beside them.
 *
 * Federation's routes (server/federation/routes.ts) are not a surface's and are not checked here:
 * they are the node-to-node transport, a layer below the surfaces in folder-rules.test.ts, which
 * every surface may build on and the core's plugin registers.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url).pathname;
const SURFACES = 'server/surfaces/';

/**
 * A class that implements an interface a layer below the surfaces declares (federation's
 * `FederationCore`): the surface's side of that layer's port, built over several of its aggregates
 * and wired by its container, so it sits at the root beside the container, not in an aggregate.
 */
function isPortAdapter(text: string): boolean {
  return [...text.matchAll(/class \w+(?:<[^>]*>)? implements (\w+)/g)].some(([, port]) =>
    new RegExp(`import[^;]*\\b${port}\\b[^;]*from '(?:\\.\\./){2,}(?!surfaces/)`).test(text),
  );
}

/** A `.get('/…'`, `.post('/…'` … or `.route({`: where a module declares a route. */
const DECLARES_ROUTE = /\.(?:get|post|put|patch|delete|head|options|all)\(\s*['"`]\/|\.route\(\s*\{/;

/** Aggregates whose routes call a service that lives elsewhere: the one each calls. */
const ROUTES_ONLY: Record<string, string> = {
  'core/did': 'the did:svc registry, registry.ts beside the routes (a log every write is checked against)',
  'core/mcp': 'the MCP server (mcp/server.ts), whose tools call the other aggregates’ services',
  'core/search': 'search across the surfaces (server/search/service.ts)',
  'library/search': 'search across the surfaces (server/search/service.ts)',
  'docs/search': 'search across the surfaces (server/search/service.ts)',
  'docs/templates': 'the built-in templates, pure rules in the surface’s domain/templates.ts',
  'node/backups': 'the core’s identity backups (core/identities/backup.ts)',
  'node/devices': 'the owner’s devices (server/devices/service.ts)',
  'node/docs': 'the documents’ billing (docs/billing/service.ts)',
  'node/events': 'the core’s owner feed (core/events/node-feed.ts)',
  'node/identities': 'the core’s identities (core/identities/service.ts)',
  'node/info': 'what startNode knows of the node: its info and a fresh UI link',
  'node/namespaces': 'the core’s namespaces (core/namespaces/service.ts)',
  'node/projects': 'the core’s projects (core/projects/service.ts)',
  'node/recovery-kit': 'the recovery kit (server/recovery/kit/service.ts)',
  'node/search': 'search across the surfaces (server/search/service.ts)',
  'node/sessions': 'the owner’s sign-in and browser sessions (server/auth/owner.ts)',
  'node/teams': 'the teams (server/teams/service.ts) and the core’s team agents',
  'node/tunnel': 'the tunnel (server/tunnel/service.ts)',
};

/** Modules out of the template today, by path under server/surfaces/, each with why it is still there: none. */
const KNOWN: Record<string, string> = {};

interface Source {
  /** The path under server/surfaces/: `<surface>/<aggregate>/...`. */
  path: string;
  text: string;
}

/** What breaks the template, as `path: why`, and the aggregates that have routes but no service. */
function shapeOf(sources: readonly Source[]): { problems: Map<string, string>; routesOnly: string[] } {
  const problems = new Map<string, string>();
  const modules = sources.filter(({ path }) => !path.endsWith('.test.ts'));
  const surfaces = new Set(modules.map(({ path }) => path.split('/')[0]!));
  for (const surface of surfaces) {
    if (!modules.some(({ path }) => path === `${surface}/index.ts`)) problems.set(`${surface}/index.ts`, 'a surface is one plugin, its index.ts');
  }
  const aggregates = new Map<string, { routes: boolean; service: boolean }>();
  for (const { path, text } of modules) {
    const [surface, ...rest] = path.split('/');
    const name = rest.at(-1)!;
    const folders = rest.slice(0, -1);
    if (folders.length === 0) {
      if (/^(routes|service|store)\.ts$|-(routes|service|store)\.ts$/.test(name))
        problems.set(path, 'routes, services and stores belong to an aggregate, not to the surface’s root');
      else if (DECLARES_ROUTE.test(text)) problems.set(path, 'declares a route outside an aggregate’s routes');
      continue;
    }
    if (folders[0] === 'routes' || folders[0] === 'service' || folders[0] === 'store') {
      problems.set(path, `the surface’s ${folders[0]}/ folder: its modules belong to the aggregates`);
      continue;
    }
    if (folders[0] === 'domain') {
      if (DECLARES_ROUTE.test(text)) problems.set(path, 'domain/ holds pure rules, not routes');
      continue;
    }
    const aggregate = `${surface}/${folders[0]}`;
    const inAggregate = rest.slice(1).join('/');
    const parts = aggregates.get(aggregate) ?? { routes: false, service: false };
    aggregates.set(aggregate, parts);
    const isRoutes = inAggregate === 'routes.ts' || inAggregate.startsWith('routes/');
    if (isRoutes) parts.routes = true;
    if (inAggregate === 'service.ts') parts.service = true;
    if (name.endsWith('-routes.ts')) problems.set(path, 'an aggregate’s routes are its routes.ts or routes/');
    else if (name.endsWith('-store.ts')) problems.set(path, 'an aggregate’s store is its store.ts or store/');
    else if (name === 'services.ts' || name.endsWith('-service.ts') || folders.slice(1).includes('service'))
      problems.set(path, 'an aggregate’s use cases are its service.ts');
    else if (!isRoutes && DECLARES_ROUTE.test(text)) problems.set(path, 'declares a route outside its aggregate’s routes.ts or routes/');
  }
  // A class the container builds is a service: one imported from the root is a service loose there.
  for (const { path, text } of modules.filter(({ path }) => /^[a-z]+\/services\.ts$/.test(path))) {
    const surface = path.split('/')[0]!;
    for (const [, names, module] of text.matchAll(/import\s*\{([^}]*)\}\s*from\s*'\.\/([^/']+\.ts)'/g)) {
      const built = names!.split(',').some((name) => new RegExp(`\\bnew ${name.trim().split(/\s+/).at(-1)}\\(`).test(text));
      if (built && !isPortAdapter(modules.find((source) => source.path === `${surface}/${module}`)?.text ?? ''))
        problems.set(`${surface}/${module}`, 'a service the container builds belongs to an aggregate, as its service.ts');
    }
  }
  const routesOnly = [...aggregates].filter(([, parts]) => parts.routes && !parts.service).map(([aggregate]) => aggregate);
  return { problems, routesOnly: routesOnly.sort() };
}

function surfaceSources(): Source[] {
  return execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', SURFACES], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter((file) => file.endsWith('.ts') && existsSync(`${root}${file}`))
    .map((file) => ({ path: file.slice(SURFACES.length), text: readFileSync(`${root}${file}`, 'utf8') }));
}

describe('the surfaces', () => {
  const { problems, routesOnly } = shapeOf(surfaceSources());

  it('each follow the one template, apart from the known exceptions', () => {
    const unknown = [...problems].filter(([path]) => !(path in KNOWN)).map(([path, why]) => `${path}: ${why}`);
    expect(unknown).toEqual([]);
    expect(Object.keys(KNOWN).filter((path) => !problems.has(path))).toEqual([]);
  });

  it('name the service each aggregate without a service.ts calls', () => {
    expect(routesOnly).toEqual(Object.keys(ROUTES_ONLY).sort());
  });

  it('would notice the layouts of before: routes/ and store/ at the root, loose *-routes.ts, services loose at the root', () => {
    const route = "app.get('/v1/x', { config: { auth: 'owner' } }, handler);";
    const { problems: found, routesOnly: bare } = shapeOf([
      { path: 'library/index.ts', text: '' },
      { path: 'library/routes/shelf.ts', text: route },
      { path: 'library/store/shelf-profiles.ts', text: '' },
      { path: 'library/shelf.ts', text: '' },
      { path: 'library/changes.ts', text: '' },
      { path: 'library/services.ts', text: "import { Shelf } from './shelf.ts';\nimport { libraryChanged } from './changes.ts';\nnew Shelf(ctx);" },
      { path: 'node/routes.ts', text: route },
      { path: 'node/setup-routes.ts', text: route },
      { path: 'node/setup-store.ts', text: '' },
      { path: 'docs/index.ts', text: '' },
      { path: 'docs/present/routes.ts', text: route },
      { path: 'docs/present/pages.ts', text: `api.post(\n  '/v1/present',` },
      { path: 'docs/theme/theme-service.ts', text: '' },
      { path: 'docs/theme/links-store.ts', text: '' },
      { path: 'docs/domain/colors.ts', text: route },
      { path: 'docs/urls.ts', text: 'export const docsUrls = () => null;' },
    ]);
    expect([...found.keys()].sort()).toEqual(
      [
        'docs/domain/colors.ts',
        'docs/present/pages.ts',
        'docs/theme/links-store.ts',
        'docs/theme/theme-service.ts',
        'library/routes/shelf.ts',
        'library/shelf.ts',
        'library/store/shelf-profiles.ts',
        'node/index.ts',
        'node/routes.ts',
        'node/setup-routes.ts',
        'node/setup-store.ts',
      ].sort(),
    );
    expect(bare).toEqual(['docs/present']);
  });
});
