/**
 * The headless node of one tree, as a user runs it: `node <tree>/bin/svc-node.js serve --data DIR
 * --port 0` in a process of its own, on the Node this script runs on, key-file custody. Resolves
 * once the ready line is out, with the owner token from the data dir's node.json. The tree is a
 * parameter (test/support/cli.ts serves only the tree it sits in), so the base commit's node and
 * the working tree's start the same way.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { readReadyLine } from '../../server/cli/ready-line.ts';
import { readNodeFile, type ReadyInfo } from '../../server/node-file.ts';
import type { Cleanup } from './cleanup.ts';

/** Enough of a node's stderr to say why it failed, not a whole run's worth. */
const STDERR_KEPT = 16_000;

/** A node that exited or stayed silent before its ready line. */
export class TreeNodeStartError extends Error {
  override name = 'TreeNodeStartError';
}

export interface TreeNode {
  url: string;
  ownerToken: string;
  /** SIGTERM, and SIGKILL when it has not exited after `timeoutMs`. */
  stop(timeoutMs?: number): Promise<void>;
  /** The end of what the node wrote to stderr, for a failure message. */
  stderr(): string;
}

/**
 * The environment a user's shell would give it: key-file custody (no keyring prompt), no
 * passphrase or data dir inherited, and no response checking, which the test suites turn on and a
 * release does not run.
 */
function serveEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, SVC_NODE_CUSTODY: 'key-file' };
  for (const name of ['SVC_NODE_PASSPHRASE', 'SVC_NODE_DATA', 'SVC_NODE_VALIDATE_RESPONSES']) delete env[name];
  return env;
}

/**
 * Starts the node of `tree` on `dataDir`. Its stop is added to `cleanup` as soon as the process
 * exists, so an interruption while it starts (or while the other tree's node starts) stops it too.
 */
export async function startTreeNode(tree: string, dataDir: string, cleanup: Cleanup, timeoutMs = 60_000): Promise<TreeNode> {
  const child = spawn(process.execPath, [join(tree, 'bin/svc-node.js'), 'serve', '--data', dataDir, '--port', '0'], {
    cwd: tree,
    env: serveEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-STDERR_KEPT)));
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const stop = async (stopTimeoutMs = 10_000): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), stopTimeoutMs);
    try {
      await exited;
    } finally {
      clearTimeout(timer);
    }
  };
  cleanup.add(`the node of ${tree}`, () => stop());
  try {
    const ready = await new Promise<ReadyInfo>((resolve, reject) => {
      const timer = setTimeout(() => reject(new TreeNodeStartError(`${tree}: no ready line after ${timeoutMs} ms; stderr: ${stderr}`)), timeoutMs);
      child.stdout.on('data', (chunk: string) => {
        stdout += chunk;
        const info = readReadyLine(stdout);
        if (info === null) return;
        clearTimeout(timer);
        resolve(info);
      });
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      void exited.then(() => {
        clearTimeout(timer);
        reject(new TreeNodeStartError(`${tree}: serve exited (${String(child.exitCode ?? child.signalCode)}) before it was ready: ${stderr}`));
      });
    });
    const ownerToken = readNodeFile(dataDir)?.owner_token;
    if (ownerToken === undefined) throw new TreeNodeStartError(`${tree}: ${dataDir}/node.json has no owner token`);
    return { url: ready.core_url, ownerToken, stop, stderr: () => stderr };
  } catch (error) {
    await stop();
    throw error;
  }
}
