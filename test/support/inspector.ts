/**
 * The MCP Inspector's CLI, run as a user runs it (`npx @modelcontextprotocol/inspector --cli <url>
 * --header "Authorization: Bearer ..." --method ...`): the package's own launcher, in a process of
 * its own, over real HTTP. Its catalog file goes to a temporary folder, never the user's home.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { NODE_BIN, REPO_ROOT } from './cli.ts';

const require = createRequire(import.meta.url);
const PACKAGE = dirname(require.resolve('@modelcontextprotocol/inspector/package.json'));
/** What the package's `mcp-inspector` bin (and so `npx @modelcontextprotocol/inspector`) runs. */
const LAUNCHER = join(PACKAGE, (require(join(PACKAGE, 'package.json')) as { bin: Record<string, string> }).bin['mcp-inspector']!);

export interface InspectorResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout as JSON, when it is. */
  json: any;
}

/** Runs `--cli <url> ...args` to its end; the calls carry `Bearer <apiKey>`. */
export function runInspector(url: string, apiKey: string, args: string[]): Promise<InspectorResult> {
  // The Inspector keeps its catalog of servers in a folder of its own, gone once it has ended.
  const catalog = mkdtempSync(join(tmpdir(), 'svc-inspector-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // The launcher starts its clients with the `node` on PATH: the project's.
    PATH: [dirname(NODE_BIN), process.env.PATH].join(delimiter),
    MCP_CATALOG_PATH: join(catalog, 'mcp.json'),
  };
  const argv = [LAUNCHER, '--cli', url, '--header', `Authorization: Bearer ${apiKey}`, ...args];
  const child = spawn(NODE_BIN, argv, { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', (error) => {
      rmSync(catalog, { recursive: true, force: true });
      reject(error);
    });
    child.on('close', (code) => {
      rmSync(catalog, { recursive: true, force: true });
      let json: unknown = null;
      try {
        json = JSON.parse(stdout);
      } catch {
        // Not JSON (an error): the test reads stderr.
      }
      resolve({ code, stdout, stderr, json });
    });
  });
}
