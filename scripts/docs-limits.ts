/** Writes the table of limits into docs/security.md (see limits-table.ts). */
import { readFileSync, writeFileSync } from 'node:fs';
import { withLimitsTable } from './limits-table.ts';

const path = new URL('../docs/security.md', import.meta.url);
writeFileSync(path, withLimitsTable(readFileSync(path, 'utf8')));
