/**
 * Encrypted, incremental backups of the node's database, in one place for whoever writes or reads
 * them: the owner API's backups (surfaces/node/node-backups/) and `svc-node kit restore --backup`.
 */
export {
  BackupCancelledError,
  BackupError,
  BackupFolderError,
  BackupKeyMismatchError,
  BackupNotFoundError,
  BackupTamperedError,
  BackupTooLargeError,
  RestoreTargetExistsError,
} from './errors.ts';
export { fetchBackup, type BackupPart, type FetchBackupOptions, type FetchedBackup } from './fetch-backup.ts';
export { checkFolderPath } from './folder.ts';
export { listBackups, restoreDatabase, type BackupSummary, type RestoreDatabaseOptions, type RestoredBackup } from './restore.ts';
export { backupsToKeep } from './retention.ts';
export { MAX_IMAGE_BYTES } from './snapshot-store.ts';
export { writeBackup, type BackupPhase, type BackupProgress, type BackupResult, type WriteBackupOptions } from './write-backup.ts';
