/**
 * A real node for API tests: real encrypted database in a temp dir, real HTTP on loopback, and
 * its DNS sent to a real name server on loopback whose tables the test edits (`t.dns`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNode, type RunningNode, type StartNodeOptions } from '../../server/index.ts';
import { startDnsServer, type DnsServer } from './dns-server.ts';

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface RequestOptions {
  body?: unknown;
  /** Sent as-is instead of JSON-encoding `body`. */
  raw?: string | Buffer;
  token?: string;
  headers?: Record<string, string>;
}

/** What the request helpers need of a node, whether it runs in process or as `svc-node serve`. */
export interface NodeEndpoint {
  url: string;
  /** The surfaces' origins: signed team envelopes name them as `aud`. */
  info: { library_url: string; docs_url: string };
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<ApiResponse<T>>;
  /** Calls the owner API with the owner token. */
  owner<T = any>(method: string, path: string, body?: unknown): Promise<ApiResponse<T>>;
}

/** One request over real HTTP: JSON in (unless `raw`), JSON out when the answer parses. */
export async function requestJson<T = any>(baseUrl: string, method: string, path: string, opts: RequestOptions = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: string | Buffer | undefined;
  if (opts.raw !== undefined) body = opts.raw;
  else if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
  const response = await fetch(`${baseUrl}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text === '' ? null : JSON.parse(text);
  } catch {
    // Not JSON: the test sees the text.
  }
  return { status: response.status, body: parsed as T, headers: response.headers };
}

export interface TestNode extends NodeEndpoint {
  node: RunningNode;
  dataDir: string;
  /** The name server the node asks (unless the test passed its own `dns` resolver). */
  dns: DnsServer;
  /** Stops the node; the temp data dir is removed unless `keepData` (then call removeData()). */
  stop(options?: { keepData?: boolean }): Promise<void>;
  removeData(): void;
}

export async function startTestNode(options: Partial<StartNodeOptions> = {}): Promise<TestNode> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'svc-node-test-'));
  const dns = await startDnsServer();
  let node: RunningNode;
  try {
    node = await startNode({
      dataDir,
      port: 0,
      uiDir: null,
      custody: { backend: 'key-file' },
      warn: () => {},
      dnsServer: dns.address,
      ...options,
    });
  } catch (error) {
    await dns.close();
    throw error;
  }
  const url = node.info.core_url;

  const request = <T>(method: string, path: string, opts: RequestOptions = {}): Promise<ApiResponse<T>> => requestJson<T>(url, method, path, opts);

  return {
    node,
    url,
    info: node.info,
    dataDir,
    dns,
    request,
    owner: (method, path, body) => request(method, path, { token: node.ownerToken, ...(body === undefined ? {} : { body }) }),
    async stop({ keepData = false } = {}) {
      await node.close();
      await dns.close();
      if (!options.dataDir && !keepData) rmSync(dataDir, { recursive: true, force: true });
    },
    removeData() {
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
