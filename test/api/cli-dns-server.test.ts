/**
 * `svc-node serve --dns-server`: every DNS question the node asks goes to that name server (here
 * a real one on loopback), not the machine's resolver; a value that is not a name server
 * address is refused in one line before the node starts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderDnsRecord } from '../../server/crypto/dns-txt.ts';
import { READY_PREFIX, runCli, startServe, type ServeProcess } from '../support/cli.ts';
import { expectOneLineFailure, jsonOutput } from '../support/cli-expect.ts';
import { startDnsServer, type DnsServer } from '../support/dns-server.ts';
import { testKey } from '../support/keys.ts';

let dataDir: string;
let dns: DnsServer;
let serve: ServeProcess;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'svc-node-cli-dns-'));
  dns = await startDnsServer();
  serve = await startServe(['--data', dataDir, '--port', '0', '--dns-server', dns.address]);
});
afterAll(async () => {
  await serve.stop();
  await dns.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('svc-node serve --dns-server', { timeout: 60_000 }, () => {
  it('asks that name server: a record there verifies a namespace', async () => {
    const controller = testKey().didKey;
    dns.records['_svcid.served-dns.test'] = [[renderDnsRecord({ controllerDid: controller })]];
    const created = jsonOutput(await runCli(['namespace', 'create', 'served-dns.test', '--controller', controller, '--data', dataDir, '--json']));
    expect(created).toMatchObject({ domain: 'served-dns.test', verification_status: 'verified', controller_did: controller });
    expect(dns.queries('_svcid.served-dns.test')).toBeGreaterThanOrEqual(1);
  });

  it('reads a failing name server as a failure, never as proof of absence', async () => {
    dns.behaviour['_svcid.servfail-dns.test'] = 'servfail';
    const controller = testKey().didKey;
    // The owner's consent stands without DNS (a node offline still works), unverified.
    const created = jsonOutput(await runCli(['namespace', 'create', 'servfail-dns.test', '--controller', controller, '--data', dataDir, '--json']));
    expect(created).toMatchObject({ domain: 'servfail-dns.test', verification_status: 'unverified' });
    expect(dns.queries('_svcid.servfail-dns.test')).toBeGreaterThanOrEqual(1);
  });

  it('refuses a value that is not a name server address, in one line', async () => {
    const other = mkdtempSync(join(tmpdir(), 'svc-node-cli-dns-bad-'));
    try {
      const result = await runCli(['serve', '--data', other, '--port', '0', '--dns-server', 'dns.example.test']);
      expect(result.stdout).not.toContain(READY_PREFIX);
      expectOneLineFailure(result, /--dns-server must be a name server address/);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});
