/**
 * The table of error codes in docs/errors.md, made from the catalogue (contract/errors.ts) so the
 * two cannot drift: `npm run docs:errors` writes it between the markers below, and
 * test/lint/error-codes-doc.test.ts fails while they differ.
 */
import { commonErrors, type ErrorEntry } from '../contract/errors.ts';
import { coreErrors } from '../contract/core/errors.ts';
import { federationErrors } from '../contract/core/federation-errors.ts';
import { docsErrors } from '../contract/docs/errors.ts';
import { libraryErrors } from '../contract/library/errors.ts';
import { nodeErrors } from '../contract/node/errors.ts';

export const START_MARKER = '<!-- error-codes:start (npm run docs:errors writes this table) -->';
export const END_MARKER = '<!-- error-codes:end -->';

const PARTS: [string, Record<string, ErrorEntry>][] = [
  ['Any route', commonErrors],
  ['Core: identities, namespaces, did:svc, mail, chat, events', coreErrors],
  ['Federation', federationErrors],
  ['Owner API', nodeErrors],
  ['Library', libraryErrors],
  ['Documents', docsErrors],
];

export function errorCodeTable(): string {
  const rows = PARTS.flatMap(([part, entries]) => [
    `| **${part}** | | |`,
    ...Object.entries(entries).map(([code, { status, summary }]) => `| \`${code}\` | ${status} | ${summary.replaceAll('|', '\\|')} |`),
  ]);
  return [START_MARKER, '| Code | Status | Situation |', '|---|---|---|', ...rows, END_MARKER].join('\n');
}

/** The document with its table replaced by the current one. */
export function withErrorCodeTable(doc: string): string {
  // The start marker's words may change: its opening names the block.
  const start = doc.indexOf(START_MARKER.slice(0, START_MARKER.indexOf(' (')));
  const end = doc.indexOf(END_MARKER);
  if (start < 0 || end < start) throw new Error(`docs/errors.md has no ${START_MARKER} … ${END_MARKER} block`);
  return doc.slice(0, start) + errorCodeTable() + doc.slice(end + END_MARKER.length);
}
