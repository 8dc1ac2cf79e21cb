/**
 * Runs the real Redocly CLI (`redocly lint`, a dev dependency) on an API description, with the
 * repository's redocly.yaml, offline: telemetry and the update check are off, and every proxy
 * variable points at a listener on loopback that counts what reaches it, so a request the CLI
 * would make anyway is seen (the caller asserts there were none) and never leaves the machine.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');
const CLI = join(ROOT, 'node_modules/@redocly/cli/bin/cli.js');
export const REDOCLY_CONFIG = join(ROOT, 'redocly.yaml');

export interface LintProblem {
  ruleId: string;
  severity: string;
  message: string;
  location: { pointer?: string }[];
}

export interface LintResult {
  exitCode: number | null;
  problems: LintProblem[];
  /** Connections the CLI opened (through the proxy it was given): none, when it works offline. */
  connections: number;
  stderr: string;
}

/** `redocly lint --format=json` on `document`, as a file in a fresh temporary folder. */
export async function redoclyLint(document: unknown): Promise<LintResult> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-redocly-'));
  let connections = 0;
  const sockets = new Set<Socket>();
  const trap = createServer((socket) => {
    connections += 1;
    sockets.add(socket);
    socket.destroy();
  });
  await new Promise<void>((done) => trap.listen(0, '127.0.0.1', done));
  const { port } = trap.address() as { port: number };
  const proxy = `http://127.0.0.1:${port}`;
  try {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(document));
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: dir,
      REDOCLY_TELEMETRY: 'off',
      REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
      HTTP_PROXY: proxy,
      HTTPS_PROXY: proxy,
      http_proxy: proxy,
      https_proxy: proxy,
      NO_COLOR: '1',
    };
    const child = spawn(process.execPath, [CLI, 'lint', file, '--config', REDOCLY_CONFIG, '--format=json', '--max-problems', '100000'], { cwd: dir, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => void (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
    const exitCode = await new Promise<number | null>((done) => child.on('close', done));
    const report = JSON.parse(stdout.slice(stdout.indexOf('{'))) as { problems: LintProblem[] };
    return { exitCode, problems: report.problems, connections, stderr };
  } finally {
    for (const socket of sockets) socket.destroy();
    await new Promise((done) => trap.close(done));
    rmSync(dir, { recursive: true, force: true });
  }
}
