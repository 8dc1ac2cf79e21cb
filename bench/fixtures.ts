/**
 * A benchmark node: real node, real HTTP, one namespace and project, helpers to make identities.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNode, type RunningNode } from '../server/index.ts';

export interface BenchNode {
  node: RunningNode;
  url: string;
  dataDir: string;
  projectKey: string;
  post<T>(path: string, token: string, body: unknown): Promise<T>;
  identity(name: string): Promise<{ agent_id: string; api_key: string; alias: string }>;
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export async function startBenchNode(dataDir = mkdtempSync(join(tmpdir(), 'svc-node-bench-'))): Promise<BenchNode> {
  const start = () => startNode({ dataDir, port: 0, uiDir: null, custody: { backend: 'key-file' }, warn: () => {} });
  let node = await start();
  const post = async <T>(path: string, token: string, body: unknown): Promise<T> => {
    const response = await fetch(`${node.info.core_url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  };
  await post('/v1/node/namespaces', node.ownerToken, { domain: 'bench.test' });
  const { api_key: projectKey } = await post<{ api_key: string }>('/v1/node/projects', node.ownerToken, { slug: 'bench', namespace: 'bench.test' });
  const bench: BenchNode = {
    node,
    url: node.info.core_url,
    dataDir,
    projectKey,
    post,
    identity: (name) => post('/v1/workspaces/init', projectKey, { lifetime: 'persistent', name }),
    async restart() {
      await node.close();
      node = await start();
      bench.node = node;
      bench.url = node.info.core_url;
    },
    async stop() {
      await node.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return bench;
}
