import { describe, expect, it } from 'vitest';
import { isOwnOrigin, namespaceTrust, proofRecordHint } from './authority.ts';

describe('namespace authority', () => {
  it('ranks DNS verification above the owner’s word, and both above nothing', () => {
    expect(namespaceTrust('dns', 'verified')).toBe('verified');
    expect(namespaceTrust('owner', 'verified')).toBe('verified');
    expect(namespaceTrust('owner', 'unverified')).toBe('owner');
    expect(namespaceTrust('owner', 'revoked')).toBe('owner');
    expect(namespaceTrust('unproven', 'unverified')).toBe('unverified');
    expect(namespaceTrust('dns', 'revoked')).toBe('unverified');
  });

  it('matches a record’s node= against the node’s own origins by origin, not by spelling', () => {
    const own = ['http://127.0.0.1:7420', 'https://node.example.com'];
    expect(isOwnOrigin('https://node.example.com', own)).toBe(true);
    expect(isOwnOrigin('https://NODE.example.com:443', own)).toBe(true);
    expect(isOwnOrigin('https://node.example.com:8443', own)).toBe(false);
    expect(isOwnOrigin('https://other.example.com', own)).toBe(false);
    expect(isOwnOrigin('not a url', own)).toBe(false);
    expect(isOwnOrigin('https://node.example.com', [])).toBe(false);
  });

  it('suggests the record to publish, with the node’s public https origin when it has one', () => {
    expect(proofRecordHint('did:key:z6MkX', ['http://127.0.0.1:7420', 'https://node.example.com'])).toBe(
      '"svcid=v1; controller=did:key:z6MkX; node=https://node.example.com;"',
    );
    expect(proofRecordHint('did:key:z6MkX', ['http://127.0.0.1:7420'])).toContain("node=<this node's public https origin>");
  });
});
