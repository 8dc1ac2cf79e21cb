/**
 * docs/errors.md lists every error code the node can answer, with its status and situation,
 * exactly as the catalogue (contract/errors.ts) has them.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../contract/errors.ts';
import { withErrorCodeTable } from '../../scripts/error-code-table.ts';

const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');

describe('the error code table of docs/errors.md', () => {
  it('is the catalogue (run `npm run docs:errors` after changing a code)', () => {
    expect(withErrorCodeTable(doc)).toBe(doc);
  });

  it('names every code', () => {
    for (const code of ERROR_CODES) expect(doc).toContain(`\`${code}\``);
  });
});
