/**
 * Runs the real headless node (`svc-node serve`) as a child process for browser tests, the way a
 * user would: fresh data dir, free port, key-file custody; waits for its `svc-node ready` line.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './build-ui.ts';

export interface ReadyInfo {
  core_url: string;
  library_url: string;
  docs_url: string;
  ui_url: string;
  public_url: string | null;
  data_dir: string;
  pid: number;
}

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
}

/** The JSON answer of `response`; a non-2xx answer throws with its status and text. */
async function jsonAnswer(response: Response, what: string): Promise<any> {
  const text = await response.text();
  if (!response.ok) throw new Error(`${what}: ${response.status} ${text}`);
  return JSON.parse(text);
}

const READY_PREFIX = 'svc-node ready ';

export function startHeadlessNode(timeoutMs = 30_000): Promise<HeadlessNode> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-node-e2e-'));
  const child = spawn(
    join(ROOT, 'node_modules/.bin/node'),
    [join(ROOT, 'bin/svc-node.js'), 'serve', '--data', dataDir, '--port', '0'],
    { cwd: ROOT, env: { ...process.env, SVC_NODE_CUSTODY: 'key-file' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  const ownerToken = (): string => {
    const file = JSON.parse(readFileSync(join(dataDir, 'node.json'), 'utf8')) as { owner_token?: unknown };
    if (typeof file.owner_token !== 'string') throw new Error('node.json has no owner_token');
    return file.owner_token;
  };
  const node = (info: ReadyInfo): HeadlessNode => ({
    info,
    dataDir,
    child,
    stderr: () => stderr,
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
    stop: async (stopTimeoutMs = 10_000) => {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), stopTimeoutMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  });

  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`svc-node did not print "${READY_PREFIX}" within ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, timeoutMs);
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const complete = stdout.split('\n').slice(0, -1); // only whole lines
      const line = complete.find((l) => l.startsWith(READY_PREFIX));
      if (line === undefined) return;
      clearTimeout(timer);
      try {
        resolve(node(JSON.parse(line.slice(READY_PREFIX.length)) as ReadyInfo));
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`svc-node exited (${code}) before it was ready\nstdout: ${stdout}\nstderr: ${stderr}`));
    });
  });
}
