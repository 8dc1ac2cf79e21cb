/**
 * The MCP Inspector's CLI, run as a user runs it (`npx @modelcontextprotocol/inspector --cli <url>
 * --method ...`): its own launcher and client in a process of their own, over real HTTP, with an
 * identity's key (inspector-auth.ts).
 *
 * The launcher is the one of `@modelcontextprotocol/inspector-cli`, the Inspector's CLI package
 * (the same version and code as the `mcp-inspector` bin): the `@modelcontextprotocol/inspector`
 * package's copy resolves the project's hoisted commander 5, which it does not declare and cannot
 * run on (`allowExcessArguments is not a function`).
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NODE_BIN, REPO_ROOT } from './cli.ts';

const require = createRequire(import.meta.url);
const LAUNCHER = join(dirname(require.resolve('@modelcontextprotocol/inspector-cli/package.json')), 'build/cli.js');
const AUTH_PRELOAD = fileURLToPath(new URL('./inspector-auth.ts', import.meta.url));

export interface InspectorResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout as JSON, when it is. */
  json: any;
}

/** Runs `--cli <url> ...args` to its end; the calls carry `Bearer <apiKey>`. */
export function runInspector(url: string, apiKey: string, args: string[]): Promise<InspectorResult> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // The launcher starts the client with the `node` on PATH: the project's.
    PATH: [dirname(NODE_BIN), process.env.PATH].join(delimiter),
    NODE_OPTIONS: `--import=${AUTH_PRELOAD}`,
    SVC_TEST_MCP_ORIGIN: new URL(url).origin,
    SVC_TEST_MCP_AUTHORIZATION: `Bearer ${apiKey}`,
  };
  const child = spawn(NODE_BIN, [LAUNCHER, '--cli', url, ...args], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
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
