/**
 * The core rules the UI checks forms with are the node's own: each one is compared with the
 * check the node's services make deeper down (which keep their own copy for now), over values
 * chosen at the edges, so the two can never drift apart unnoticed.
 */
import { describe, expect, it } from 'vitest';
import { normalizeDomain } from '../server/crypto/dns-txt.ts';
import { peerOrigin as nodePeerOrigin } from '../server/federation/directory.ts';
import {
  ADDRESS_NAME,
  addressNameProblem,
  addressProblem,
  memberAliasProblem,
  domainProblem,
  hostKeyProblem,
  localNamespace,
  normalizeDomainName,
  peerOrigin,
  peerUrlProblem,
  portProblem,
  PROJECT_SLUG,
  publicUrlProblem,
  slugProblem,
  splitAddress,
  tunnelHostProblem,
  tunnelUserProblem,
} from './core-rules.ts';

const NAMES = ['a', 'alice', 'Alice_2', 'bob-smith', 'x'.repeat(64), 'x'.repeat(65), '', '-a', '_a', 'a.b', 'a b', 'a/b', 'é', 'a~'];
const SLUGS = [...NAMES, 'acme.dev', 'a.', '.a', 'v1.2_x-y'];
const DOMAINS = [
  'example.com',
  'Example.COM.',
  'local',
  'node-1f2e.local',
  'com',
  'a..b',
  '-a.com',
  'a-.com',
  'a_b.com',
  `${'a'.repeat(63)}.com`,
  `${'a'.repeat(64)}.com`,
  `${'a.'.repeat(126)}ab`,
  `${'a.'.repeat(127)}ab`,
  'xn--bcher-kva.example',
  '',
  '.',
  '127.0.0.1',
  '127.0.0.1.',
  '1.2.3',
  '127.0.0.1.example',
  '360.example',
  'a.b.c.d.e.f.g.example',
  'a.b.c.d.e.f.g.h.example',
];
const URLS = [
  'https://node.example.com',
  'http://127.0.0.1:7420',
  'https://node.example.com/',
  'https://node.example.com/path',
  'https://node.example.com?x=1',
  'https://user:pw@node.example.com',
  'ftp://node.example.com',
  'node.example.com',
  '',
];

describe('contract/core-rules: the node’s rules, once', () => {
  // The node's project and identity schemas take PROJECT_SLUG and ADDRESS_NAME from here (contract/core/, contract/node/).
  it('accepts exactly the project slugs and address names the node accepts', () => {
    for (const slug of SLUGS) expect([slug, slugProblem(slug) === null]).toEqual([slug, PROJECT_SLUG.test(slug)]);
    for (const name of NAMES) expect([name, addressNameProblem(name) === null]).toEqual([name, ADDRESS_NAME.test(name)]);
  });

  it('normalises domains as the node does, `local` the one single-label namespace', () => {
    for (const domain of DOMAINS) expect([domain, normalizeDomainName(domain)]).toEqual([domain, normalizeDomain(domain)]);
    for (const domain of DOMAINS) expect([domain, domainProblem(domain) === null]).toEqual([domain, normalizeDomain(domain) !== null]);
  });

  it('splits an address as the node looks it up: the domain as stored, the name as written', () => {
    for (const domain of DOMAINS)
      for (const name of NAMES) {
        const parts = normalizeDomain(domain) === null || !ADDRESS_NAME.test(name) ? null : { domain: normalizeDomain(domain), name };
        expect([domain, name, splitAddress(`${domain}/${name}`)]).toEqual([domain, name, parts]);
      }
    expect(splitAddress('Example.COM./Alice')).toEqual({ domain: 'example.com', name: 'Alice' });
    expect(splitAddress('example.com')).toBeNull();
    expect(splitAddress('example.com/team/alice')).toBeNull();
  });

  it('takes a peer URL as the node does', () => {
    for (const url of URLS) expect([url, peerOrigin(url)]).toEqual([url, nodePeerOrigin(url)]);
    for (const url of URLS) expect([url, peerUrlProblem(url) === null]).toEqual([url, nodePeerOrigin(url) !== null]);
  });

  it('says what is wrong in words that follow a label', () => {
    expect(slugProblem('')).toBe('enter a slug, for example acme');
    expect(slugProblem('x'.repeat(70))).toBe('use at most 64 characters (this one has 70)');
    expect(slugProblem('Bad Name')).toMatch(/^use 1-64 letters, digits, "\.", "-" or "_"/);
    expect(addressNameProblem('alice.smith')).toMatch(/no spaces or dots/);
    expect(domainProblem('https://example.com')).toMatch(/without https:\/\//);
    expect(domainProblem('example')).toMatch(/^enter a domain name such as example\.com/);
    expect(domainProblem('127.0.0.1')).toBe('enter a domain name, not an IP address');
    expect(domainProblem('a.b.c.d.e.f.g.h.example')).toBe('use at most 8 parts separated by dots');
  });

  it('checks a member’s alias and address as the team service does', () => {
    for (const alias of ['scout', 'a.b_c-d', 'x'.repeat(128)]) expect(memberAliasProblem(alias), alias).toBeNull();
    expect(memberAliasProblem('not ok')).toBe('use 1-128 letters, digits, ".", "-" or "_", starting with a letter or digit (no spaces)');
    expect(memberAliasProblem('')).toBe('enter an alias, for example scout');
    expect(memberAliasProblem('x'.repeat(129))).toBe('use at most 128 characters (this one has 129)');
    expect(addressProblem('example.com/scout')).toBeNull();
    expect(addressProblem('scout')).toMatch(/^enter an address as domain\/name/);
    expect(addressProblem('Example.com/scout')).toBe('write the domain in lower case, without a trailing dot');
    expect(addressProblem('example.com/a b')).toMatch(/^the name: use 1-64 letters/);
    expect(addressProblem('https://x/y')).toMatch(/^the domain: /);
  });

  it('checks the tunnel’s fields', () => {
    expect(tunnelHostProblem('ssh.example.com')).toBeNull();
    expect(tunnelHostProblem('[::1]')).toBeNull();
    expect(tunnelHostProblem('ssh example')).toMatch(/host name or IP/);
    expect(tunnelUserProblem('tunnel.user_1')).toBeNull();
    expect(tunnelUserProblem('root user')).toMatch(/account name/);
    expect(portProblem('22')).toBeNull();
    expect(portProblem('0')).toBe('use a whole number from 1 to 65535');
    expect(portProblem('0', 0)).toBeNull();
    expect(portProblem('65536', 0)).toBe('use a whole number from 0 to 65535');
    expect(portProblem('2.5')).toMatch(/whole number/);
    expect(publicUrlProblem('')).toBeNull();
    expect(publicUrlProblem('https://node.example.com')).toBeNull();
    expect(publicUrlProblem('node.example.com')).toMatch(/http\(s\) URL/);
    expect(hostKeyProblem(`SHA256:${'A'.repeat(43)}`)).toBeNull();
    expect(hostKeyProblem('SHA256:short')).toMatch(/ssh-keygen/);
  });
});

describe('localNamespace', () => {
  it('names a node’s own namespace from its id, a valid domain', () => {
    expect(localNamespace('1F2E3D4C-5b6a-4789-8abc-def012345678')).toBe('node-1f2e3d4c.local');
    expect(normalizeDomainName(localNamespace('1f2e3d4c-5b6a-4789-8abc-def012345678'))).toBe('node-1f2e3d4c.local');
  });
});
