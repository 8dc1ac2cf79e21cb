/**
 * The README's table of error codes, made from the catalogue (contract/errors.ts) so the two
 * cannot drift: `npm run readme:errors` writes it between the markers below, and
 * test/lint/error-codes-readme.test.ts fails while they differ.
 */
import { commonErrors, type ErrorEntry } from '../contract/errors.ts';
import { coreErrors } from '../contract/core/errors.ts';
import { federationErrors } from '../contract/core/federation-errors.ts';
import { docsErrors } from '../contract/docs/errors.ts';
import { libraryErrors } from '../contract/library/errors.ts';
import { nodeErrors } from '../contract/node/errors.ts';

export const START_MARKER = '<!-- error-codes:start (npm run readme:errors writes this table) -->';
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

/** The README with its table replaced by the current one. */
export function withErrorCodeTable(readme: string): string {
  const start = readme.indexOf(START_MARKER);
  const end = readme.indexOf(END_MARKER);
  if (start < 0 || end < start) throw new Error(`README.md has no ${START_MARKER} … ${END_MARKER} block`);
  return readme.slice(0, start) + errorCodeTable() + readme.slice(end + END_MARKER.length);
}
