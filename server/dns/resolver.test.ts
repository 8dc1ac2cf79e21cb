/**
 * The system resolver against a real name server on loopback (UDP, test/support/dns-server.ts):
 * answers, a server that never answers, SERVFAIL and NXDOMAIN. A lookup that cannot be answered
 * fails within its budget, and never as "no record", which namespace registration would
 * otherwise read as "nothing proves otherwise". With a server given, address lookups go there
 * too (getaddrinfo would ask the machine's resolver).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startDnsServer, type DnsServer } from '../../test/support/dns-server.ts';
import { createSystemDnsResolver } from './resolver.ts';

let server: DnsServer;

beforeAll(async () => {
  server = await startDnsServer();
});
afterAll(() => server.close());
beforeEach(() => server.resetCounts());

const failure = (promise: Promise<unknown>): Promise<NodeJS.ErrnoException> =>
  promise.then(
    () => expect.fail('expected the lookup to fail'),
    (error: unknown) => error as NodeJS.ErrnoException,
  );

describe('createSystemDnsResolver with a name server', () => {
  it('reads TXT records from the server, and [] for a name without any', async () => {
    server.records['_svcid.answers.test'] = [['svcid=v1; ', 'controller=x;'], ['other']];
    const resolver = createSystemDnsResolver({ servers: [server.address] });
    expect(await resolver.resolveTxt('_svcid.answers.test')).toEqual([['svcid=v1; ', 'controller=x;'], ['other']]);
    expect(await resolver.resolveTxt('_svcid.nothing.test')).toEqual([]);
    expect(server.queries('_svcid.answers.test')).toBe(1);
    expect(server.queries('_svcid.nothing.test')).toBe(1);
  });

  it('looks addresses up at the server (A and AAAA), not through getaddrinfo', async () => {
    server.addresses['node.answers.test'] = ['192.0.2.7', '2001:db8::7'];
    const resolver = createSystemDnsResolver({ servers: [server.address] });
    expect(await resolver.lookup('node.answers.test')).toEqual([
      { address: '192.0.2.7', family: 4 },
      { address: '2001:db8::7', family: 6 },
    ]);
    expect(server.queries('node.answers.test')).toBe(2);
    expect((await failure(resolver.lookup('unknown.answers.test'))).code).toBe('ENOTFOUND');
    // Literals and localhost are never sent.
    server.resetCounts();
    expect(await resolver.lookup('127.0.0.1')).toEqual([{ address: '127.0.0.1', family: 4 }]);
    expect(await resolver.lookup('localhost')).toEqual([
      { address: '127.0.0.1', family: 4 },
      { address: '::1', family: 6 },
    ]);
    expect(server.queries()).toBe(0);
  });

  it('gives up on a name server that never answers within its budget, as a timeout', async () => {
    server.behaviour['_svcid.silent.test'] = 'silent';
    server.behaviour['node.silent.test'] = 'silent';
    const resolver = createSystemDnsResolver({ servers: [server.address], timeoutMs: 600 });
    const started = performance.now();
    expect((await failure(resolver.resolveTxt('_svcid.silent.test'))).code).toBe('ETIMEOUT');
    expect((await failure(resolver.lookup('node.silent.test'))).code).toBe('ETIMEOUT');
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('reports SERVFAIL as a failure, not as an empty answer', async () => {
    server.behaviour['_svcid.failing.test'] = 'servfail';
    server.behaviour['node.failing.test'] = 'servfail';
    const resolver = createSystemDnsResolver({ servers: [server.address], timeoutMs: 2_000 });
    expect((await failure(resolver.resolveTxt('_svcid.failing.test'))).code).toBe('ESERVFAIL');
    expect((await failure(resolver.lookup('node.failing.test'))).code).toBe('ESERVFAIL');
  });

  it('reads NXDOMAIN as "no record", even for a name the tables know', async () => {
    server.records['_svcid.gone.test'] = [['svcid=v1;']];
    server.behaviour['_svcid.gone.test'] = 'nxdomain';
    const resolver = createSystemDnsResolver({ servers: [server.address] });
    expect(await resolver.resolveTxt('_svcid.gone.test')).toEqual([]);
  });

  it('lets concurrent lookups time out on their own', async () => {
    for (const label of ['a', 'b', 'c']) server.behaviour[`_svcid.${label}.silent.test`] = 'silent';
    const resolver = createSystemDnsResolver({ servers: [server.address], timeoutMs: 400 });
    const codes = await Promise.all(
      ['a', 'b', 'c'].map((label) => resolver.resolveTxt(`_svcid.${label}.silent.test`).catch((caught: NodeJS.ErrnoException) => caught.code)),
    );
    expect(codes).toEqual(['ETIMEOUT', 'ETIMEOUT', 'ETIMEOUT']);
  });

  it('refuses a name server that is not an address at once', () => {
    expect(() => createSystemDnsResolver({ servers: ['dns.example.test'] })).toThrow();
  });
});
