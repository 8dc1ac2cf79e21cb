/**
 * The index of every route at the end of docs/http-api.md, made from the API descriptions the node
 * itself serves (`GET /openapi.json` on each listener, generated from the routes as they are
 * registered), so the page cannot leave a route out or name one that is gone: `npm run docs:routes`
 * writes it between the markers below, and test/lint/http-api-doc.test.ts fails while they differ.
 */

export const START_MARKER = '<!-- routes:start (npm run docs:routes writes this table) -->';
export const END_MARKER = '<!-- routes:end -->';

interface Operation {
  operationId?: string;
  summary?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
}

/** The part of an OpenAPI document the index reads. */
export interface ApiDocument {
  paths: Record<string, Record<string, Operation>>;
}

/** What a security requirement asks for, in words: each alternative, then any scopes. */
function authOf(security: Record<string, string[]>[] | undefined): string {
  if (security === undefined || security.length === 0) return 'none';
  const words = security.map((requirement) => {
    const schemes = Object.keys(requirement);
    if (schemes.includes('teamCertificate')) {
      const scopes = requirement.teamCertificate ?? [];
      return scopes.length === 0 ? 'team certificate' : `team certificate (${scopes.join(', ')})`;
    }
    if (schemes.includes('ownerToken')) return 'owner';
    if (schemes.includes('apiKey')) return 'API key';
    if (schemes.includes('didKey')) return 'DIDKey';
    // An empty requirement: no credential will do too (a public route that answers an identity more).
    if (schemes.length === 0) return 'none';
    return schemes.join(' + ');
  });
  return words.length === 1 ? (words[0] as string) : `${words.slice(0, -1).join(', ')} or ${words.at(-1) as string}`;
}

const cell = (text: string): string => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

/**
 * One row per operation of the loopback listener's document, grouped by tag (in the order the
 * tags first appear), saying whether the peer listener serves it too.
 */
export function routeIndex(loopback: ApiDocument, peer: ApiDocument): string {
  const groups = new Map<string, string[]>();
  for (const [path, operations] of Object.entries(loopback.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const tag = operation.tags?.[0] ?? 'other';
      const onPeer = peer.paths[path]?.[method] !== undefined ? 'yes' : 'no';
      const row = `| \`${method.toUpperCase()} ${path}\` | ${cell(operation.operationId ?? '')} | ${cell(authOf(operation.security))} | ${onPeer} | ${cell(operation.summary ?? '')} |`;
      groups.set(tag, [...(groups.get(tag) ?? []), row]);
    }
  }
  const rows = [...groups].flatMap(([tag, tagRows]) => [`| **${tag}** | | | | |`, ...tagRows]);
  return [START_MARKER, '| Route | operationId | Credential | Peer listener | What it does |', '|---|---|---|---|---|', ...rows, END_MARKER].join('\n');
}

/** The page with its index replaced by `table`. */
export function withRouteIndex(doc: string, table: string): string {
  // The start marker's words may change: its opening names the block.
  const start = doc.indexOf(START_MARKER.slice(0, START_MARKER.indexOf(' (')));
  const end = doc.indexOf(END_MARKER);
  if (start < 0 || end < start) throw new Error(`docs/http-api.md has no ${START_MARKER} … ${END_MARKER} block`);
  return doc.slice(0, start) + table + doc.slice(end + END_MARKER.length);
}
