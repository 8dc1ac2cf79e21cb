/**
 * The node lock. It was a pid file checked with kill(pid, 0): a stale lock whose pid
 * now belongs to another process refused to start (containers reuse small pids), and a restart
 * right after a crash raced the dying process (a killed node that is not yet reaped still answers
 * kill(pid, 0)). Now it is an SQLite lock the operating system drops when the process dies.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { expectOk } from '../support/expect.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { startServedNode, type ServedNode } from '../support/served-node.ts';

const nodes: { stop(): Promise<unknown> }[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const node of nodes.splice(0)) await node.stop();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-node-lock-'));
  dirs.push(dir);
  return dir;
}

async function startOn(dataDir: string): Promise<TestNode> {
  const t = await startTestNode({ dataDir });
  nodes.push(t);
  return t;
}

/**
 * Waits, without letting this process's event loop run (so the child is not reaped), until the
 * killed process has died: on Linux its main thread is a zombie (`Z`) in /proc and its other
 * threads are gone (the last one out closes the files). False where there is no /proc.
 */
function waitUntilDead(pid: number): boolean {
  const proc = `/proc/${pid}`;
  if (!existsSync(proc)) return false;
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    // The state follows the command name, which is in parentheses and may itself hold some.
    const state = readFileSync(`${proc}/stat`, 'utf8').replace(/^.*\) /s, '')[0];
    if (state === 'Z' && readdirSync(`${proc}/task`).length === 1) return true;
  }
  throw new Error(`process ${pid} did not die`);
}

describe('the node lock', () => {
  it('does not trust a lock file naming a live unrelated process (pid 1)', async () => {
    const dataDir = tempDir();
    writeFileSync(join(dataDir, 'node.lock'), '1');
    const t = await startOn(dataDir);
    expectOk(await t.owner('GET', '/v1/node/info'));
  });

  it('frees the dir the moment a node is SIGKILLed, before its parent has even reaped it', { timeout: 60_000 }, async () => {
    const served: ServedNode = await startServedNode({ prefix: 'svc-node-lock-' });
    dirs.push(served.dataDir);
    const killed = served.process!;
    served.process = null;
    killed.child.kill('SIGKILL');
    // Without /proc there is no telling death from the reap: wait for the reap instead.
    if (!waitUntilDead(killed.child.pid!)) await killed.exit;
    // startNode takes the lock before its first await, so on Linux the killed process is still
    // unreaped (kill(pid, 0) still answers for it) when the new node looks at the lock.
    const t = await startOn(served.dataDir);
    expect((await killed.exit).signal).toBe('SIGKILL');
    expectOk(await t.owner('GET', '/v1/node/info'));
  });

  it('refuses a second live node on the same dir, in another process and in the same one', { timeout: 60_000 }, async () => {
    const served = await startServedNode({ prefix: 'svc-node-lock-' });
    dirs.push(served.dataDir);
    nodes.push({ stop: () => served.dispose() });
    await expect(startTestNode({ dataDir: served.dataDir })).rejects.toThrow(`another svc-node (pid ${served.info.pid}) is running on ${served.dataDir}`);

    const dataDir = tempDir();
    const first = await startOn(dataDir);
    await expect(startTestNode({ dataDir })).rejects.toThrow(/another svc-node .*is running on/);
    // The refused start left the first node's lock alone; once it stops, the dir is free.
    expectOk(await first.owner('GET', '/v1/node/info'));
    await first.stop();
    nodes.splice(nodes.indexOf(first), 1);
    const second = await startOn(dataDir);
    expectOk(await second.owner('GET', '/v1/node/info'));
  });
});
