/**
 * Refusals that stop custody itself (wrong backend, wrong passphrase, keyring down, a database
 * that does not belong to this secret). They surface at startup or as a broken node, never as a
 * request's fault, so they are not ServiceErrors; per-key request faults use server/errors.ts.
 */
export type CustodyErrorCode =
  | 'backend_mismatch'
  | 'os_backend_mismatch'
  | 'secret_missing'
  | 'secret_exists'
  | 'passphrase_missing'
  | 'wrong_passphrase'
  | 'keyring_unavailable'
  | 'safe_storage_unavailable'
  | 'plaintext_refused'
  | 'state_invalid'
  | 'key_backend_mismatch'
  | 'key_unwrap_failed'
  | 'not_attached'
  | 'closed';

export class CustodyError extends Error {
  readonly code: CustodyErrorCode;

  constructor(code: CustodyErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'CustodyError';
    this.code = code;
  }
}
