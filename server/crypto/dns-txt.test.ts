import { describe, it, expect } from 'vitest';
import { SVC_DNS, UPSTREAM_DNS, dnsRecordName, normalizeDomain, originError, parseDnsRecords, renderDnsRecord } from './dns-txt.ts';
import { MAX_DOMAIN_LABELS, namespaceDomainError as domainError } from '../../contract/core-rules.ts';

const CONTROLLER = 'did:key:z6MkehRgf7yJbgaGfYsdoAsKdBPE3dj2CYhowQdcjqSJgvVd';

describe('normalizeDomain', () => {
  it('lower-cases and strips one trailing dot', () => {
    expect(normalizeDomain('Acme.COM.')).toBe('acme.com');
    expect(normalizeDomain('a-b.x1.example')).toBe('a-b.x1.example');
    expect(normalizeDomain('xn--bcher-kva.de')).toBe('xn--bcher-kva.de');
    expect(normalizeDomain('local')).toBe('local');
  });

  it('refuses invalid names', () => {
    for (const bad of [
      '',
      '.',
      'com',
      'acme..com',
      'acme.com..',
      '-acme.com',
      'acme-.com',
      'ac_me.com',
      'acme.com/x',
      ' acme.com',
      'bücher.de',
      `${'a'.repeat(64)}.com`,
    ]) {
      expect(normalizeDomain(bad), bad).toBeNull();
    }
    expect(normalizeDomain(`${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`)).toHaveLength(253);
    expect(normalizeDomain(`${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(62)}`)).toBeNull();
  });

  it('refuses addresses: a namespace is a name', () => {
    for (const literal of ['127.0.0.1', '127.0.0.1.', '10.0.0.1', '1.2.3', '4294967295.0', '::1', '[::1]', '::ffff:127.0.0.1', '2001:db8::1']) {
      expect(normalizeDomain(literal), literal).toBeNull();
      expect(domainError(literal), literal).toMatch(/IP address|not all digits|letters, digits/);
    }
    expect(domainError('127.0.0.1')).toMatch(/IP address is not a domain/);
    // Digits are fine in any label but the last.
    expect(normalizeDomain('127.0.0.1.example')).toBe('127.0.0.1.example');
    expect(normalizeDomain('360.example')).toBe('360.example');
  });

  it(`refuses more than ${MAX_DOMAIN_LABELS} labels, before anything asks DNS about them`, () => {
    expect(normalizeDomain('a.b.c.d.e.f.g.example')).toBe('a.b.c.d.e.f.g.example');
    expect(normalizeDomain('a.b.c.d.e.f.g.h.example')).toBeNull();
    expect(domainError(`${'a.'.repeat(120)}test`)).toBe('a domain has at most 8 labels');
  });
});

describe('dnsRecordName', () => {
  it('uses the profile label', () => {
    expect(dnsRecordName('Acme.com.')).toBe('_svcid.acme.com');
    expect(dnsRecordName('acme.com', UPSTREAM_DNS)).toBe('_awid.acme.com');
    expect(() => dnsRecordName('not a domain')).toThrow(RangeError);
  });
});

describe('renderDnsRecord', () => {
  it('renders the canonical value with and without an origin', () => {
    expect(renderDnsRecord({ controllerDid: CONTROLLER })).toBe(`svcid=v1; controller=${CONTROLLER};`);
    expect(renderDnsRecord({ controllerDid: CONTROLLER, origin: 'https://node.acme.com' })).toBe(
      `svcid=v1; controller=${CONTROLLER}; node=https://node.acme.com;`,
    );
    expect(renderDnsRecord({ controllerDid: CONTROLLER, origin: 'https://r.example.com:8443' }, UPSTREAM_DNS)).toBe(
      `awid=v1; controller=${CONTROLLER}; registry=https://r.example.com:8443;`,
    );
  });

  it('refuses bad controllers and origins', () => {
    expect(() => renderDnsRecord({ controllerDid: 'did:svc:2CiZ88hVF4JuQim8nnSuyeiV2HF2' })).toThrow(/did:key/);
    expect(() => renderDnsRecord({ controllerDid: CONTROLLER, origin: 'https://node.acme.com/' })).toThrow(/canonical/);
    expect(() => renderDnsRecord({ controllerDid: CONTROLLER, origin: 'http://node.acme.com' })).toThrow(/https/);
    expect(renderDnsRecord({ controllerDid: CONTROLLER, origin: 'http://node.acme.com' }, SVC_DNS, { allowHttp: true })).toContain(
      'node=http://node.acme.com;',
    );
  });
});

describe('originError', () => {
  it('accepts canonical https origins', () => {
    expect(originError('https://node.acme.com')).toBeNull();
    expect(originError('https://node.acme.com:8443')).toBeNull();
  });

  it('refuses non-canonical, local and IP origins', () => {
    const cases: Record<string, string> = {
      'https://Node.acme.com': 'origin is not canonical',
      'https://node.acme.com:443': 'origin is not canonical',
      'https://node.acme.com/path': 'origin is not canonical',
      'https://node.acme.com?x=1': 'origin is not canonical',
      'https://user:pw@node.acme.com': 'origin is not canonical',
      'ftp://node.acme.com': 'origin must use https',
      'http://node.acme.com': 'origin must use https',
      'https://203.0.113.7': 'origin must not be an IP literal',
      'https://[2001:db8::1]': 'origin must not be an IP literal',
      'https://localhost': 'origin must not be localhost',
      'https://app.localhost': 'origin must not be localhost',
      'node.acme.com': 'origin is not a URL',
    };
    for (const [value, error] of Object.entries(cases)) expect(originError(value), value).toBe(error);
  });
});

describe('parseDnsRecords', () => {
  it('round-trips a rendered record', () => {
    const value = renderDnsRecord({ controllerDid: CONTROLLER, origin: 'https://node.acme.com' });
    expect(parseDnsRecords([[value]])).toEqual({ ok: true, controllerDid: CONTROLLER, origin: 'https://node.acme.com' });
    expect(parseDnsRecords([[`svcid=v1; controller=${CONTROLLER};`]])).toEqual({ ok: true, controllerDid: CONTROLLER, origin: null });
  });

  it('concatenates multi-string rdata and ignores unrelated records', () => {
    const records = [['v=spf1 -all'], ['svcid=v1; contr', `oller=${CONTROLLER}; node=https://n.acme.com;`], ['awid=v1; controller=x;']];
    expect(parseDnsRecords(records)).toEqual({ ok: true, controllerDid: CONTROLLER, origin: 'https://n.acme.com' });
  });

  it('tolerates spacing and unknown keys', () => {
    expect(parseDnsRecords([[`svcid=v1;controller = ${CONTROLLER} ;future=1`]])).toEqual({ ok: true, controllerDid: CONTROLLER, origin: null });
  });

  it('reads the upstream profile with the same code', () => {
    expect(parseDnsRecords([[`awid=v1; controller=${CONTROLLER}; registry=https://registry.example.com;`]], UPSTREAM_DNS)).toEqual({
      ok: true,
      controllerDid: CONTROLLER,
      origin: 'https://registry.example.com',
    });
    expect(parseDnsRecords([[`awid=v1; controller=${CONTROLLER};`]], SVC_DNS)).toMatchObject({ ok: false, reason: 'absent' });
  });

  it('reports an absent record separately from an invalid one', () => {
    expect(parseDnsRecords([])).toEqual({ ok: false, reason: 'absent', error: 'no svcid record' });
    expect(parseDnsRecords([[' svcid=v1; controller=x;']])).toMatchObject({ ok: false, reason: 'absent' });
  });

  it('refuses invalid records', () => {
    const one = `svcid=v1; controller=${CONTROLLER};`;
    const cases: [string[][], string][] = [
      [[[one], [one]], 'multiple svcid records'],
      [[[`${one} controller=${CONTROLLER};`]], 'duplicate controller field'],
      [[[`svcid=v2; controller=${CONTROLLER};`]], 'unsupported svcid version'],
      [[['svcid=v1;']], 'controller must be an Ed25519 did:key'],
      [[['svcid=v1; controller=did:key:zBadKey;']], 'controller must be an Ed25519 did:key'],
      [[[`${one} node=http://n.acme.com;`]], 'node: origin must use https'],
      [[[`${one} node=https://10.0.0.1;`]], 'node: origin must not be an IP literal'],
      [[[`${one} node=https://localhost;`]], 'node: origin must not be localhost'],
      [[[`${one} node=https://n.acme.com/x;`]], 'node: origin is not canonical'],
    ];
    for (const [records, error] of cases) expect(parseDnsRecords(records), error).toEqual({ ok: false, reason: 'invalid', error });
  });

  it('allows http origins only when asked', () => {
    const records = [[`svcid=v1; controller=${CONTROLLER}; node=http://n.acme.com;`]];
    expect(parseDnsRecords(records, SVC_DNS, { allowHttp: true })).toEqual({ ok: true, controllerDid: CONTROLLER, origin: 'http://n.acme.com' });
  });
});
