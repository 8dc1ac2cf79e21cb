/**
 * Making a data dir from elsewhere (`kit restore`, `device join`) fails for reasons that are the
 * person's to fix: a kit that does not open, a folder in use, a backup that does not check, a code
 * the other device refuses, a bundle not sealed to this device. Each says why in its message,
 * which the command prints as its one line; anything else is a fault and stays as it is.
 */
import { BundleUnreadableError } from '../devices/keys-bundle.ts';
import { JoinRefused } from '../devices/join.ts';
import { BackupError } from '../recovery/backup/index.ts';
import { RecoveryKitError } from '../recovery/kit/kit-error.ts';
import { RestoreRefused } from '../recovery/new-data-dir.ts';
import { CliError } from './cli-error.ts';

export function asRestoreRefusal(error: unknown): unknown {
  const refusal =
    error instanceof RecoveryKitError ||
    error instanceof RestoreRefused ||
    error instanceof BackupError ||
    error instanceof JoinRefused ||
    error instanceof BundleUnreadableError;
  return refusal ? new CliError(error.message) : error;
}
