/**
 * Writes the index of every route into docs/http-api.md (see route-index.ts): starts a node on a
 * throwaway data dir with both listeners on free loopback ports, reads the API description each
 * serves, and stops it again.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNode } from '../server/index.ts';
import { routeIndex, withRouteIndex, type ApiDocument } from './route-index.ts';

async function apiDocument(origin: string): Promise<ApiDocument> {
  const response = await fetch(`${origin}/openapi.json`);
  if (!response.ok) throw new Error(`${origin}/openapi.json answered ${response.status}`);
  return (await response.json()) as ApiDocument;
}

const dataDir = mkdtempSync(join(tmpdir(), 'svc-node-routes-'));
try {
  const node = await startNode({ dataDir, port: 0, publicPort: 0, uiDir: null, custody: { backend: 'key-file' }, warn: () => {} });
  try {
    const table = routeIndex(await apiDocument(node.info.core_url), await apiDocument(node.info.public_url as string));
    const path = new URL('../docs/http-api.md', import.meta.url);
    writeFileSync(path, withRouteIndex(readFileSync(path, 'utf8'), table));
  } finally {
    await node.close();
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
