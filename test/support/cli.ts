/**
 * The `svc-node` command as a user runs it: a real process on the Node the project pins, the
 * key-file custody backend, and its stdout/stderr/exit code as the result.
 */
import { readReadyLine } from '../../server/cli/ready-line.ts';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { shellCommand } from '../../contract/shell-words.ts';
import { startDnsServer, type DnsServer } from './dns-server.ts';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const NODE_BIN = join(REPO_ROOT, 'node_modules/.bin/node');
const SVC_NODE = join(REPO_ROOT, 'bin/svc-node.js');
export { READY_PREFIX } from '../../server/cli/ready-line.ts';

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function cliEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, SVC_NODE_CUSTODY: 'key-file' };
  delete env.SVC_NODE_PASSPHRASE;
  delete env.SVC_NODE_DATA;
  return env;
}

/**
 * SVC_NODE_TEST_NODE_ARGS: extra flags for the Node that runs every command, to look inside a
 * suite's node (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`, `--heapsnapshot-signal=SIGUSR2`).
 */
function extraNodeArgs(): string[] {
  return (process.env.SVC_NODE_TEST_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== '');
}

/** Runs the CLI; `wrapper` is a command that runs it (e.g. `ip netns exec <ns>`, which execs it in place). */
function spawnCli(args: string[], env: NodeJS.ProcessEnv = {}, wrapper: string[] = []): ChildProcess {
  const command = [...wrapper, NODE_BIN, ...extraNodeArgs(), SVC_NODE, ...args];
  return spawn(command[0]!, command.slice(1), { cwd: REPO_ROOT, env: { ...cliEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
}

function collect(child: ChildProcess): { output: () => { stdout: string; stderr: string }; exit: Promise<CliResult> } {
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exit = new Promise<CliResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { output: () => ({ stdout, stderr }), exit };
}

/** Runs one command to completion; `env` adds to the command's environment. */
export function runCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return collect(spawnCli(args, env)).exit;
}

/**
 * Runs one command on a terminal of its own (util-linux `script` gives it a pseudo-terminal), as a
 * person at a keyboard does: each time the output shows the next prompt, its answer is typed.
 * The terminal merges stdout and stderr into `stdout`, and echoes only what the command echoes.
 */
export function runCliInTerminal(args: string[], answers: [prompt: RegExp, typed: string][], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  const command = shellCommand(NODE_BIN, SVC_NODE, ...args);
  const child = spawn('script', ['-qfec', command, '/dev/null'], { cwd: REPO_ROOT, env: { ...cliEnv(), ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  const { output, exit } = collect(child);
  let answered = 0;
  let seen = 0;
  child.stdout.on('data', () => {
    const next = answers[answered];
    const fresh = output().stdout.slice(seen);
    if (next === undefined || !next[0].test(fresh)) return;
    answered++;
    seen = output().stdout.length;
    child.stdin.write(next[1]);
  });
  return exit;
}

/** Lines of `text`, without the empty one after the last newline. */
export const lines = (text: string): string[] => text.split('\n').filter((line, i, all) => line !== '' || i < all.length - 1);

export interface ServeProcess {
  child: ChildProcess;
  /**
   * The name server on loopback the node asks (`--dns-server`), started for it unless the test
   * passed its own or runs it through a wrapper (another network namespace cannot reach it).
   */
  dns: DnsServer | null;
  /** The parsed JSON of the ready line. */
  ready: Record<string, unknown>;
  output(): { stdout: string; stderr: string };
  exit: Promise<CliResult>;
  /** Sends `signal` and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<CliResult>;
}

/** Starts `svc-node serve` and waits for its ready line (or its early exit). */
export async function startServe(args: string[], options: { timeoutMs?: number; env?: NodeJS.ProcessEnv; wrapper?: string[] } = {}): Promise<ServeProcess> {
  const { timeoutMs = 30_000, env, wrapper } = options;
  // Tests never send DNS past loopback: the node asks a name server of the test's own.
  const dns = args.includes('--dns-server') || (wrapper ?? []).length > 0 ? null : await startDnsServer();
  const child = spawnCli(['serve', ...args, ...(dns ? ['--dns-server', dns.address] : [])], env, wrapper);
  const { output, exit } = collect(child);
  if (dns) void exit.finally(() => dns.close()).catch(() => undefined);
  const ready = await new Promise<Record<string, unknown>>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ready line after ${timeoutMs} ms; stderr: ${output().stderr}`)), timeoutMs);
    const check = (): void => {
      const info = readReadyLine(output().stdout);
      if (info === null) return;
      clearTimeout(timer);
      resolve(info as unknown as Record<string, unknown>);
    };
    child.stdout?.on('data', check);
    void exit.then((result) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${String(result.code)}) before it was ready: ${result.stderr}`));
    });
  });
  return {
    child,
    dns,
    ready,
    output,
    exit,
    stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exit;
    },
  };
}
