/** Writes the catalogue's error codes into docs/errors.md (see error-code-table.ts). */
import { readFileSync, writeFileSync } from 'node:fs';
import { withErrorCodeTable } from './error-code-table.ts';

const path = new URL('../docs/errors.md', import.meta.url);
writeFileSync(path, withErrorCodeTable(readFileSync(path, 'utf8')));
