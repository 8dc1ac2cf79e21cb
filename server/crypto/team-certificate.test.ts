import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.ts';
import { didKeyFromPublicKey } from './did-key.ts';
import { privateKeyFromSeed, rawPublicKey, signBytes } from './ed25519.ts';
import { toBase64Padded } from './encoding.ts';
import {
  certificateSigningBytes,
  encodeCertificate,
  issueCertificate,
  parseCertificateHeader,
  verifyCertificateSignature,
  type CertificateFields,
} from './team-certificate.ts';

const TEAM = privateKeyFromSeed(new Uint8Array(32).fill(1));
const TEAM_PUBLIC = rawPublicKey(TEAM);
const OTHER_PUBLIC = rawPublicKey(privateKeyFromSeed(new Uint8Array(32).fill(2)));
const MEMBER_DID = didKeyFromPublicKey(rawPublicKey(privateKeyFromSeed(new Uint8Array(32).fill(3))));

const FIELDS: CertificateFields = {
  certificate_id: '2b1e5a8e-3c1f-4e34-9a43-0e7d7c3b5f10',
  team_id: 'backend:acme.com',
  team_did_key: didKeyFromPublicKey(TEAM_PUBLIC),
  member_did_key: MEMBER_DID,
  alias: 'alice',
  lifetime: 'persistent',
  issued_at: '2026-04-06T10:00:00Z',
};

const sign = (bytes: Buffer) => signBytes(TEAM, bytes);

describe('issueCertificate', () => {
  it('omits member_did_aw and member_address when unset (never "")', () => {
    const cert = issueCertificate({ ...FIELDS, member_did_aw: '', member_address: null }, sign);
    expect(Object.keys(cert)).toEqual([
      'version',
      'certificate_id',
      'team_id',
      'team_did_key',
      'member_did_key',
      'alias',
      'lifetime',
      'issued_at',
      'signature',
    ]);
    expect(cert.version).toBe(1);
    expect(cert.signature).toMatch(/^[A-Za-z0-9+/]{86}$/);
  });

  it('carries them when set, and signs the canonical JSON of every key but the signature', () => {
    const cert = issueCertificate({ ...FIELDS, member_did_aw: 'did:svc:abc', member_address: 'acme.com/alice' }, sign);
    expect(cert).toMatchObject({ member_did_aw: 'did:svc:abc', member_address: 'acme.com/alice' });
    const { signature: _s, ...rest } = cert;
    expect(certificateSigningBytes(cert).toString('utf8')).toBe(canonicalJson(rest));
    expect(certificateSigningBytes(cert).toString('utf8')).toMatch(/^\{"alias":"alice","certificate_id":.*"version":1\}$/);
    expect(verifyCertificateSignature(cert, TEAM_PUBLIC)).toBe(true);
  });
});

describe('verifyCertificateSignature', () => {
  const cert = issueCertificate(FIELDS, sign);

  it('refuses another key, any changed field, an added field and a mangled signature', () => {
    expect(verifyCertificateSignature(cert, OTHER_PUBLIC)).toBe(false);
    expect(verifyCertificateSignature({ ...cert, alias: 'mallory' }, TEAM_PUBLIC)).toBe(false);
    expect(verifyCertificateSignature({ ...cert, member_did_aw: '' }, TEAM_PUBLIC)).toBe(false);
    expect(verifyCertificateSignature({ ...cert, signature: `${cert.signature}==` }, TEAM_PUBLIC)).toBe(false);
    expect(verifyCertificateSignature({ ...cert, signature: 42 } as never, TEAM_PUBLIC)).toBe(false);
    expect(verifyCertificateSignature({ ...cert, extra: 1.5 } as never, TEAM_PUBLIC)).toBe(false);
  });
});

describe('parseCertificateHeader / encodeCertificate', () => {
  const cert = issueCertificate(FIELDS, sign);

  it('round-trips through padded standard base64', () => {
    const b64 = encodeCertificate(cert);
    expect(b64).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
    expect(b64.length % 4).toBe(0);
    expect(parseCertificateHeader(b64)).toEqual(cert);
    expect(encodeCertificate(JSON.stringify(cert))).toBe(b64);
  });

  it('refuses what is not a version-1 certificate', () => {
    const enc = (value: unknown) => toBase64Padded(Buffer.from(JSON.stringify(value)));
    expect(parseCertificateHeader('')).toBeNull();
    expect(parseCertificateHeader('not base64!')).toBeNull();
    expect(parseCertificateHeader(toBase64Padded(Buffer.from('{not json')))).toBeNull();
    expect(parseCertificateHeader(enc([cert]))).toBeNull();
    expect(parseCertificateHeader(enc({ ...cert, version: 2 }))).toBeNull();
    expect(parseCertificateHeader(enc({ ...cert, version: '1' }))).toBeNull();
    expect(parseCertificateHeader(enc({ ...cert, team_id: '' }))).toBeNull();
    expect(parseCertificateHeader(enc({ ...cert, member_did_key: undefined }))).toBeNull();
    expect(parseCertificateHeader(enc({ ...cert, certificate_id: 7 }))).toBeNull();
  });
});
