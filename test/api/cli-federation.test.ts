/**
 * `svc-node peer ...` and `svc-node tunnel ...` against a real `svc-node serve` process: the peer
 * table, and the tunnel's configuration, key, start, status and stop (the tunnel end to end
 * through an SSH server is test/api/tunnel.test.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startServe, type CliResult, type ServeProcess } from '../support/cli.ts';
import { expectOneLineFailure, jsonOutput } from '../support/cli-expect.ts';

let dataDir: string;
let serve: ServeProcess;

const cli = (...args: string[]): Promise<CliResult> => runCli([...args, '--data', dataDir]);

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'svc-node-cli-federation-'));
  serve = await startServe(['--data', dataDir, '--port', '0']);
});
afterAll(async () => {
  await serve.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('peer commands', { timeout: 60_000 }, () => {
  it('adds, lists and removes peers', async () => {
    expect(jsonOutput(await cli('peer', 'add', 'Partner.TEST', 'https://node.partner.test', '--json'))).toMatchObject({
      domain: 'partner.test',
      url: 'https://node.partner.test',
    });
    const listed = jsonOutput(await cli('peer', 'list', '--json'));
    expect(listed.peers.map((p: { domain: string }) => p.domain)).toEqual(['partner.test']);
    const text = await cli('peer', 'list');
    expect(text.stdout).toContain('partner.test  https://node.partner.test');
    expect(jsonOutput(await cli('peer', 'remove', 'partner.test', '--json'))).toEqual({ domain: 'partner.test', removed: true });
    expect((await cli('peer', 'list')).stdout.trim()).toBe('no peers');
  });

  it('fails in one line on bad input and unknown peers', async () => {
    expectOneLineFailure(await cli('peer', 'add', 'partner.test', 'not a url'), /422.*url/);
    expectOneLineFailure(await cli('peer', 'remove', 'ghost.test'), /404/);
    expectOneLineFailure(await cli('peer', 'add', 'partner.test'), /usage: svc-node peer add/);
  });
});

describe('tunnel commands', { timeout: 60_000 }, () => {
  it('prints the key to authorize, the same each time', async () => {
    const key = jsonOutput(await cli('tunnel', 'key', '--json')).public_key;
    expect(key).toMatch(/^ssh-ed25519 AAAA\S+ svc-node tunnel$/);
    expect((await cli('tunnel', 'key')).stdout.trim()).toBe(key);
  });

  it('refuses to start before it is set, and validates what is set', async () => {
    expectOneLineFailure(await cli('tunnel', 'start'), /409.*Configure the tunnel first/);
    expectOneLineFailure(await cli('tunnel', 'set', '--host', 'ssh.example.test', '--user', 'svc'), /usage: svc-node tunnel set/);
    expectOneLineFailure(await cli('tunnel', 'set', '--host', 'ssh.example.test', '--user', 'svc', '--remote-port', '99999'), /--remote-port must be a port/);
    expectOneLineFailure(
      await cli('tunnel', 'set', '--host', 'ssh.example.test', '--user', 'svc', '--remote-port', '0', '--host-key', 'x'),
      /422.*host_key_sha256/,
    );
  });

  it('sets, starts (to a host that is not there), reports and stops the tunnel', async () => {
    const set = jsonOutput(await cli('tunnel', 'set', '--host', '127.0.0.1', '--port', '9', '--user', 'svc', '--remote-port', '8443', '--json'));
    expect(set.config).toMatchObject({ host: '127.0.0.1', port: 9, username: 'svc', remote_port: 8443 });
    const started = jsonOutput(await cli('tunnel', 'start', '--json'));
    expect(['connecting', 'reconnecting', 'failed']).toContain(started.status.state);
    const status = await cli('tunnel', 'status');
    expect(status.stdout).toMatch(/^tunnel (connecting|reconnecting|failed)/);
    const stopped = jsonOutput(await cli('tunnel', 'stop', '--json'));
    expect(stopped.status).toMatchObject({ state: 'stopped', public_url: null });
  });
});
