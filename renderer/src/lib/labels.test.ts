import { describe, expect, it } from 'vitest';
import {
  authorityLabel,
  custodyLabel,
  identityStatusBadge,
  lifetimeLabel,
  nodeStatusLabel,
  namespaceDnsRecord,
  reachabilityLabel,
  senderTrustBadge,
  verificationBadge,
} from './labels.ts';

describe('labels', () => {
  it('gives verification states a tone', () => {
    expect(verificationBadge('verified')).toMatchObject({ text: 'Verified', tone: 'ok' });
    expect(verificationBadge('unverified')).toMatchObject({ text: 'Unverified', tone: 'warn' });
    expect(verificationBadge('revoked')).toMatchObject({ text: 'Revoked', tone: 'danger' });
    expect(verificationBadge('future-state')).toMatchObject({ text: 'future-state', tone: 'neutral' });
  });

  it('says who vouches for a sender’s domain, and nothing for a sender without an address', () => {
    expect(senderTrustBadge('verified', 'bigcorp.example/ceo')).toMatchObject({
      text: 'Domain verified',
      tone: 'ok',
      hint: expect.stringContaining('DNS for bigcorp.example'),
    });
    expect(senderTrustBadge('owner', 'home.example/me')).toMatchObject({ text: 'Registered by you', tone: 'neutral' });
    expect(senderTrustBadge('unverified', 'bigcorp.example/ceo')).toMatchObject({
      text: 'Domain unverified',
      tone: 'warn',
      hint: expect.stringMatching(/proves the key, not the address/),
    });
    expect(senderTrustBadge(null, 'bigcorp.example/ceo')).toBeNull();
    expect(senderTrustBadge('verified', null)).toBeNull();
    expect(senderTrustBadge(undefined, 'x.example/y')).toBeNull();
    expect([authorityLabel('owner'), authorityLabel('dns'), authorityLabel('unproven')]).toEqual([
      'Registered by you',
      'Proven by DNS',
      'Registered without proof',
    ]);
  });

  it('names identity states and lifetimes', () => {
    expect(identityStatusBadge('archived').text).toBe('Archived');
    expect(identityStatusBadge('deleted').tone).toBe('danger');
    expect(lifetimeLabel('persistent').text).toBe('Persistent');
    expect(lifetimeLabel('ephemeral').text).toBe('Ephemeral');
    expect(reachabilityLabel('contacts-only')).toBe('Contacts only');
    expect(reachabilityLabel('public')).toBe('Anyone with the address');
  });

  it('explains custody backends, warning about the key file', () => {
    expect(custodyLabel('key-file').hint).toMatch(/anyone who can read the data folder/);
    expect(custodyLabel('safe-storage').text).toMatch(/keychain/i);
    expect(custodyLabel('other').text).toBe('other');
  });

  it('builds the _svcid DNS record', () => {
    expect(namespaceDnsRecord('acme.test', 'did:key:z6Mk1')).toEqual({
      name: '_svcid.acme.test',
      value: 'svcid=v1; controller=did:key:z6Mk1;',
    });
  });
});

describe('nodeStatusLabel', () => {
  it('says Running only while the node answers', () => {
    expect(nodeStatusLabel('open', '127.0.0.1:7420', null)).toMatchObject({ text: 'Running · 127.0.0.1:7420', tone: 'ok' });
    const down = nodeStatusLabel('retrying', '127.0.0.1:7420', 'Could not reach the node.');
    expect(down).toMatchObject({ text: 'Not answering · reconnecting…', tone: 'warn' });
    expect(down.text).not.toContain('Running');
    expect(down.hint).toContain('Could not reach the node.');
    expect(nodeStatusLabel('connecting', 'h', null).text).toBe('Connecting · h');
  });
});
