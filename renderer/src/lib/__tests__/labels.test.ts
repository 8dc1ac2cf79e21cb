import { describe, expect, it } from 'vitest';
import {
  custodyLabel,
  identityStatusBadge,
  lifetimeLabel,
  namespaceDnsRecord,
  reachabilityLabel,
  verificationBadge,
} from '../labels.ts';

describe('labels', () => {
  it('gives verification states a tone', () => {
    expect(verificationBadge('verified')).toMatchObject({ text: 'Verified', tone: 'ok' });
    expect(verificationBadge('unverified')).toMatchObject({ text: 'Unverified', tone: 'warn' });
    expect(verificationBadge('revoked')).toMatchObject({ text: 'Revoked', tone: 'danger' });
    expect(verificationBadge('future-state')).toMatchObject({ text: 'future-state', tone: 'neutral' });
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
