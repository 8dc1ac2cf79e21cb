/**
 * A namespace domain is read once, by the contract's schemas, wherever a request names one: the
 * spelling the node stores (lower case, no trailing dot) and the refusal of what cannot be a
 * domain, so routes pass the domain on as parsed.
 */
import { describe, expect, it } from 'vitest';
import { CreateNamespaceBody, CreateProjectBody } from '../node/owner.ts';
import { PeerBody } from '../node/peers.ts';
import { SetupBody } from '../node/setup.ts';
import { ResolveParams } from './identities.ts';
import { AddressParams, DomainParams, RegisterNamespaceBody } from './namespaces.ts';

const refusals = (result: { error?: { issues: { path: PropertyKey[]; message: string }[] } | undefined }) =>
  result.error?.issues.map((issue) => ({ path: issue.path, message: issue.message })) ?? [];

describe('a namespace domain in a request', () => {
  it('is spelled as stored: lower case, without a trailing dot', () => {
    expect(RegisterNamespaceBody.parse({ domain: 'Example.COM.' }).domain).toBe('example.com');
    expect(CreateNamespaceBody.parse({ domain: ' Owner.Example ' }).domain).toBe('owner.example');
    expect(PeerBody.parse({ domain: 'Peer.Example.', url: 'https://node.peer.example' }).domain).toBe('peer.example');
    expect(SetupBody.parse({ name: 'scout', domain: 'Acme.Test' }).domain).toBe('acme.test');
    expect(CreateProjectBody.parse({ slug: 'p', namespace: 'NS.Test.' }).namespace).toBe('ns.test');
  });

  it('is refused in a body when it cannot be a domain, saying why', () => {
    expect(refusals(RegisterNamespaceBody.safeParse({ domain: '127.0.0.1' }))).toEqual([
      { path: ['domain'], message: 'not a valid domain name: an IP address is not a domain: a namespace is a DNS name' },
    ]);
    expect(refusals(RegisterNamespaceBody.safeParse({ domain: 'a.b.c.d.e.f.g.h.example' }))).toEqual([
      { path: ['domain'], message: 'not a valid domain name: a domain has at most 8 labels' },
    ]);
    expect(refusals(RegisterNamespaceBody.safeParse({ domain: 'under_score.test' }))).toEqual([
      { path: ['domain'], message: 'not a valid domain name: each label has 1 to 63 letters, digits or inner hyphens' },
    ]);
  });

  it('in a path is spelled as stored, and left as written when it cannot be one (no such namespace: 404)', () => {
    expect(DomainParams.parse({ domain: 'Example.COM.' }).domain).toBe('example.com');
    expect(AddressParams.parse({ domain: 'Example.COM', name: 'scout' })).toEqual({ domain: 'example.com', name: 'scout' });
    expect(ResolveParams.parse({ namespace: 'Example.COM.', name: 'scout' }).namespace).toBe('example.com');
    expect(DomainParams.parse({ domain: 'not_a_domain' }).domain).toBe('not_a_domain');
  });
});
