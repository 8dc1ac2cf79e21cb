/**
 * The refusals of writing and reading backups, by name: the owner API turns them into its codes,
 * and `kit restore` prints them. None carries key material or plaintext.
 */

/** Any refusal of a backup, written or read: each situation below is one. */
export class BackupError extends Error {
  override readonly name: string = 'BackupError';
}

/** A chunk or a manifest does not pass its check: changed, swapped, cut short or missing. Nothing was written. */
export class BackupTamperedError extends BackupError {
  override readonly name = 'BackupTamperedError';
}

/** The backup key does not open this folder's backups: they were written under another key. */
export class BackupKeyMismatchError extends BackupError {
  override readonly name = 'BackupKeyMismatchError';
}

/** The folder holds no backup, or none with the id asked for. */
export class BackupNotFoundError extends BackupError {
  override readonly name = 'BackupNotFoundError';
}

/** The folder cannot hold backups: not an absolute path, or a file rather than a directory. */
export class BackupFolderError extends BackupError {
  override readonly name = 'BackupFolderError';
  /** `relative`: the path is not absolute; `not_directory`: something other than a directory is there. */
  readonly reason: 'relative' | 'not_directory';

  constructor(reason: 'relative' | 'not_directory', message: string) {
    super(message);
    this.reason = reason;
  }
}

/** The file a restore would write already exists: a restore makes a new database, never overwrites one. */
export class RestoreTargetExistsError extends BackupError {
  override readonly name = 'RestoreTargetExistsError';
}

/** The database is larger than a backup holds in memory at once (see snapshot.ts). */
export class BackupTooLargeError extends BackupError {
  override readonly name = 'BackupTooLargeError';
}

/** The backup was cancelled while it was written: no manifest was added, the folder's backups are as they were. */
export class BackupCancelledError extends BackupError {
  override readonly name = 'BackupCancelledError';
}
