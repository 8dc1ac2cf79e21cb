/**
 * Runs the real headless node (`svc-node serve`) as a child process for browser tests, the way a
 * user would: fresh data dir, free port, key-file custody; waits for its `svc-node ready` line.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readNodeFile, type ReadyInfo } from '../../server/node-file.ts';
import { startServe } from '../support/cli.ts';

export interface HeadlessNode {
  info: ReadyInfo;
  dataDir: string;
  child: ChildProcess;
  /** Everything the node wrote to stderr so far (for failure messages). */
  stderr(): string;
  /** The owner token from DIR/node.json. */
  ownerToken(): string;
  /** An owner-API call (`/v1/node/...`) with the owner token; throws on a non-2xx answer. */
  owner(method: 'GET' | 'POST', path: string, body?: unknown): Promise<any>;
  /** A library request as a team's owner member: the node signs it (as the UI does), the test sends it. */
  asTeamOwner(teamId: string, method: string, path: string, body?: unknown): Promise<any>;
  /** SIGTERM, then the exit code (null when killed by a signal). */
  stop(timeoutMs?: number): Promise<number | null>;
  /** Stops the node, then deletes its data dir. */
  dispose(): Promise<void>;
}

/** The JSON answer of `response`; a non-2xx answer throws with its status and text. */
async function jsonAnswer(response: Response, what: string): Promise<any> {
  const text = await response.text();
  if (!response.ok) throw new Error(`${what}: ${response.status} ${text}`);
  return JSON.parse(text);
}

/**
 * `dataDir`: start on an existing data dir (a node stopped earlier, its database seeded meanwhile);
 * `port`: on the port a stopped node listened on (a restart, as the browser sees one).
 */
export async function startHeadlessNode(timeoutMs = 30_000, options: { dataDir?: string; port?: number } = {}): Promise<HeadlessNode> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'svc-node-e2e-'));
  const serve = await startServe(['--data', dataDir, '--port', String(options.port ?? 0)], { timeoutMs });
  const info = serve.ready as unknown as ReadyInfo;
  const ownerToken = (): string => {
    const token = readNodeFile(dataDir)?.owner_token;
    if (token === undefined) throw new Error('node.json has no owner_token');
    return token;
  };
  const stop = async (stopTimeoutMs = 10_000): Promise<number | null> => {
    const timer = setTimeout(() => serve.child.kill('SIGKILL'), stopTimeoutMs);
    try {
      return (await serve.stop('SIGTERM')).code;
    } finally {
      clearTimeout(timer);
    }
  };
  return {
    info,
    dataDir,
    child: serve.child,
    stderr: () => serve.output().stderr,
    ownerToken,
    owner: async (method, path, body) => {
      const response = await fetch(`${info.core_url}${path}`, {
        method,
        headers: { authorization: `Bearer ${ownerToken()}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return jsonAnswer(response, `${method} ${path}`);
    },
    asTeamOwner: async (teamId, method, path, body) => {
      const text = body === undefined ? undefined : JSON.stringify(body);
      const sign = await fetch(`${info.core_url}/v1/node/teams/${encodeURIComponent(teamId)}/sign`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ownerToken()}`, 'content-type': 'application/json' },
        body: JSON.stringify({ method, path, ...(text === undefined ? {} : { body: text }) }),
      });
      const signed = (await jsonAnswer(sign, `sign ${method} ${path}`)) as { url: string; headers: Record<string, string> };
      const response = await fetch(signed.url, {
        method,
        headers: { ...signed.headers, ...(text === undefined ? {} : { 'content-type': 'application/json' }) },
        body: text,
      });
      return jsonAnswer(response, `${method} ${path}`);
    },
    stop,
    dispose: async () => {
      await stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
