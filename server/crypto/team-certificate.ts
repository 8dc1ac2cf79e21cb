/**
 * Team certificates (docs/adr/0003-request-authentication.md): a team key's Ed25519 statement that
 * a member key belongs to the team under an alias. The document is upstream's, byte for byte:
 * optional member fields are omitted when unset (an issuer emitting `""` breaks upstream's Go
 * verifier), and the signature covers the canonical JSON of every key present except `signature`.
 */
import { canonicalJsonBytes } from './canonical-json.ts';
import { verifyBytes } from './ed25519.ts';
import { fromBase64Padded, fromBase64Unpadded, toBase64Padded, toBase64Unpadded } from './encoding.ts';

export type CertificateLifetime = 'persistent' | 'ephemeral';

export interface TeamCertificate {
  version: 1;
  certificate_id: string;
  team_id: string;
  team_did_key: string;
  member_did_key: string;
  member_did_aw?: string;
  member_address?: string;
  alias: string;
  lifetime: CertificateLifetime;
  issued_at: string;
  signature: string;
}

export type UnsignedCertificate = Omit<TeamCertificate, 'signature'>;

export interface CertificateFields {
  certificate_id: string;
  team_id: string;
  team_did_key: string;
  member_did_key: string;
  member_did_aw?: string | null | undefined;
  member_address?: string | null | undefined;
  alias: string;
  lifetime: CertificateLifetime;
  issued_at: string;
}

/**
 * What the team key signs: every key of the document but `signature`, canonicalised. Verifiers
 * canonicalise whatever keys are present (upstream's Python does), so unknown keys are covered too.
 */
export function certificateSigningBytes(cert: UnsignedCertificate | TeamCertificate): Buffer {
  const { signature: _signature, ...rest } = cert as TeamCertificate;
  return canonicalJsonBytes(rest);
}

/** Builds and signs a certificate; `sign` runs inside custody with the team key. */
export function issueCertificate(fields: CertificateFields, sign: (bytes: Buffer) => Uint8Array): TeamCertificate {
  // Document order as upstream prints it; the signature does not depend on it.
  const unsigned: UnsignedCertificate = {
    version: 1,
    certificate_id: fields.certificate_id,
    team_id: fields.team_id,
    team_did_key: fields.team_did_key,
    member_did_key: fields.member_did_key,
    ...(fields.member_did_aw ? { member_did_aw: fields.member_did_aw } : {}),
    ...(fields.member_address ? { member_address: fields.member_address } : {}),
    alias: fields.alias,
    lifetime: fields.lifetime,
    issued_at: fields.issued_at,
  };
  return { ...unsigned, signature: toBase64Unpadded(sign(certificateSigningBytes(unsigned))) };
}

/** True when `teamPublicKey` (raw 32 bytes) signed `cert`. Never throws. */
export function verifyCertificateSignature(cert: TeamCertificate, teamPublicKey: Uint8Array): boolean {
  if (typeof cert.signature !== 'string') return false;
  const signature = fromBase64Unpadded(cert.signature);
  if (!signature) return false;
  let message: Buffer;
  try {
    message = certificateSigningBytes(cert);
  } catch {
    return false; // not canonicalisable (a float, a lone surrogate): nothing was signed
  }
  return verifyBytes(teamPublicKey, message, signature);
}

const nonEmpty = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

/**
 * Decodes an X-SVCID-Team-Certificate header value (standard base64 of the JSON document), with
 * upstream's structural checks: version 1 and non-empty team_id, member_did_key, certificate_id.
 * Null when it is not a certificate; whether it is a valid one is verifyCertificateSignature's job.
 */
export function parseCertificateHeader(b64: string): TeamCertificate | null {
  const bytes = fromBase64Padded(b64);
  if (!bytes || bytes.length === 0) return null;
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const cert = value as Record<string, unknown>;
  if (cert.version !== 1) return null;
  if (!nonEmpty(cert.team_id) || !nonEmpty(cert.member_did_key) || !nonEmpty(cert.certificate_id)) return null;
  return cert as unknown as TeamCertificate;
}

/** The exact JSON text a certificate is handed out as. */
export function certificateJson(cert: TeamCertificate): string {
  return JSON.stringify(cert);
}

/** Standard base64 (padded) of the certificate JSON: the header and CLI form. */
export function encodeCertificate(cert: TeamCertificate | string): string {
  return toBase64Padded(Buffer.from(typeof cert === 'string' ? cert : certificateJson(cert), 'utf8'));
}
