/**
 * The direction of dependencies between the node's folders, written once: each folder (and each of
 * the core surface's aggregates) has a place in LAYERS, and a module imports only from folders
 * below its own. Composition modules, which wire the node together, may import anything. Nothing
 * breaks the rule today; a breach would have to be listed in KNOWN, with why it is still there, and
 * the list must be exact, so a change that removes one also removes it here, and nothing new joins
 * it unseen.
 * (The file-level rule, no import cycles, is import-cycles.test.ts.)
 */
import { parseDependencyTree } from 'dpdm';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url).pathname;

/** From the bottom up: shared foundations first, the owner's API and the command line last. */
const LAYERS = [
  'server', // the node's small shared modules: errors, clock, context, caches
  'store',
  'crypto',
  'dns',
  'net',
  'custody',
  'auth',
  'http',
  'markdown', // rendering pages and mail bodies, off the main thread
  'events',
  'teams',
  'search',
  'tunnel',
  'federation',
  'recovery', // the recovery kit, and backups of the database: the node's keys, state and history sealed, and a node restored from them
  'devices', // the owner's linked devices: joining one (the keys sealed to it, the history as a snapshot), the list, revocation
  'core/health', // whether the node and its database answer
  'core/did',
  'core/namespaces',
  'core/projects',
  'core/identities',
  'core/messaging',
  'core/mail',
  'core/chat',
  'core/contacts',
  'core/control',
  'core/team',
  'core/search',
  'core/events',
  'core/mcp',
  'surfaces/core',
  'surfaces/library',
  'surfaces/docs',
  'surfaces/node',
  'cli',
] as const;

/** Modules whose job is to wire the node together: they import from every layer. */
const COMPOSITION = [/^server\/index\.ts$/, /^server\/context\.ts$/, /^server\/http\/app\.ts$/, /^server\/surfaces\/[a-z]+\/(index|services)\.ts$/];

/** A surface's container: its aggregates' routes take it as their dependencies. */
const CONTAINER = /^server\/surfaces\/([a-z]+)\/services\.ts$/;
/** The node's context (its database, bus, custody, resolver): every layer is handed it. */
const CONTEXT = 'server/context.ts';

/** The breaches of today, `from -> to` by folder, each with why it is still there: none. */
const KNOWN: Record<string, string> = {};

function layerOf(file: string): string {
  const parts = file.split('/');
  if (parts[1] === 'surfaces') return parts[2] === 'core' && parts.length > 4 ? `core/${parts[3]}` : `surfaces/${parts[2]}`;
  return parts.length > 2 ? parts[1]! : 'server';
}

type Tree = Record<string, readonly { id: string | null }[] | null>;

function breaches(tree: Tree): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const [file, dependencies] of Object.entries(tree)) {
    if (!file.startsWith('server/') || file.endsWith('.test.ts') || COMPOSITION.some((pattern) => pattern.test(file))) continue;
    const from = layerOf(file);
    for (const dependency of dependencies ?? []) {
      const target = dependency.id;
      if (!target?.startsWith('server/')) continue;
      const to = layerOf(target);
      const container = CONTAINER.exec(target);
      if (target === CONTEXT) continue;
      if (to === from || (container && (from === `surfaces/${container[1]}` || from.startsWith(`${container[1]}/`)))) continue;
      if (LAYERS.indexOf(to as (typeof LAYERS)[number]) < LAYERS.indexOf(from as (typeof LAYERS)[number])) continue;
      const key = `${from} -> ${to}`;
      found.set(key, [...(found.get(key) ?? []), `${file} -> ${target}`]);
    }
  }
  return found;
}

describe('the folders of the node', () => {
  it('each have a place in the layers', async () => {
    const tree = await parseDependencyTree(['server/**/*.ts'], { context: root, transform: false });
    const unplaced = [
      ...new Set(
        Object.keys(tree)
          .filter((file) => file.startsWith('server/'))
          .map(layerOf),
      ),
    ].filter((layer) => !(LAYERS as readonly string[]).includes(layer));
    expect(unplaced).toEqual([]);
  });

  it('depend only downwards, apart from the known breaches', async () => {
    const found = breaches(await parseDependencyTree(['server/**/*.ts'], { context: root, transform: false, skipDynamicImports: false }));
    expect(Object.fromEntries([...found].filter(([key]) => !(key in KNOWN)))).toEqual({});
    expect(Object.keys(KNOWN).filter((key) => !found.has(key))).toEqual([]);
  });

  it('would notice an upward import, and let the wiring through', () => {
    const found = breaches({
      'server/crypto/sign.ts': [{ id: 'server/surfaces/core/mail/service.ts' }, { id: 'server/errors.ts' }],
      'server/surfaces/core/mail/routes.ts': [{ id: 'server/surfaces/core/services.ts' }, { id: 'server/context.ts' }],
      'server/index.ts': [{ id: 'server/surfaces/node/routes.ts' }],
    });
    expect([...found.keys()]).toEqual(['crypto -> core/mail']);
  });
});
