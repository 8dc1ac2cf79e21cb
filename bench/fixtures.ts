/**
 * A benchmark node: real node, real HTTP, one namespace and project, helpers to make identities.
 * With `peerListener` it also listens for other nodes (`--public-port`), and a restart keeps its
 * ports, so peers that point at it find it again, as they would a real node's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNode, type RunningNode } from '../server/index.ts';

export interface BenchNodeOptions {
  /** The node's namespace: its identities' addresses are `<namespace>/<name>`. */
  namespace?: string;
  /** Also start the peer-facing listener, with its default connection caps and rate limit. */
  peerListener?: boolean;
}

export interface BenchNode {
  node: RunningNode;
  url: string;
  /** The peer listener's origin (null without `peerListener`). */
  publicUrl: string | null;
  dataDir: string;
  projectKey: string;
  post<T>(path: string, token: string, body: unknown): Promise<T>;
  identity(name: string): Promise<{ agent_id: string; api_key: string; alias: string; address: string | null }>;
  restart(): Promise<void>;
  stop(): Promise<void>;
}

const portOf = (url: string | null): number | null => (url === null ? null : Number(new URL(url).port));

export async function startBenchNode({ namespace = 'bench.test', peerListener = false }: BenchNodeOptions = {}): Promise<BenchNode> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-node-bench-'));
  const start = (port: number, publicPort: number | null) =>
    startNode({ dataDir, port, publicPort, uiDir: null, custody: { backend: 'key-file' }, warn: () => {} });
  let node = await start(0, peerListener ? 0 : null);
  const post = async <T>(path: string, token: string, body: unknown): Promise<T> => {
    const response = await fetch(`${node.info.core_url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  };
  await post('/v1/node/namespaces', node.ownerToken, { domain: namespace });
  const { api_key: projectKey } = await post<{ api_key: string }>('/v1/node/projects', node.ownerToken, { slug: 'bench', namespace });
  const bench: BenchNode = {
    node,
    url: node.info.core_url,
    publicUrl: node.info.public_url,
    dataDir,
    projectKey,
    post,
    identity: (name) => post('/v1/workspaces/init', projectKey, { lifetime: 'persistent', name }),
    async restart() {
      await node.close();
      node = await start(portOf(node.info.core_url) ?? 0, portOf(node.info.public_url));
      bench.node = node;
    },
    async stop() {
      await node.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return bench;
}
