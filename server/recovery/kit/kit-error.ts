/**
 * Why a recovery kit was refused. A kit is read by `svc-node kit restore` in its own process, not
 * through a request, so these are not ServiceErrors; the command line prints the message.
 */
export type RecoveryKitErrorCode =
  /** Not a kit at all: not JSON, another format, too large, nested too deep, a field out of bounds. */
  | 'not_a_kit'
  /** A kit of a version (or from an svc-node) this one does not read. */
  | 'unsupported'
  /** The tag check failed: the passphrase is wrong, or a byte of the kit was changed. */
  | 'does_not_open'
  /** Making a kit: the node holds more than one kit file carries. */
  | 'too_large';

export class RecoveryKitError extends Error {
  readonly code: RecoveryKitErrorCode;

  constructor(code: RecoveryKitErrorCode, message: string) {
    super(message);
    this.name = 'RecoveryKitError';
    this.code = code;
  }
}

/** The one sentence for a failed tag check: from outside, a wrong passphrase and a changed kit look the same. */
export const DOES_NOT_OPEN = 'the kit does not open with this passphrase, or it was changed';
