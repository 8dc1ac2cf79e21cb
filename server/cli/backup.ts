/**
 * `svc-node backup --to DIR`: the node on `--data` backs its database up into DIR (sealed chunks,
 * only the new ones written, then a manifest; old backups pruned by the retention rule); thin over
 * `POST /v1/node/backups`. A relative DIR is taken from where the command runs. Ctrl-C while the
 * node writes it cancels the backup there (`DELETE /v1/node/backups/running`): the node adds
 * nothing to DIR, and the command ends with its refusal; a second Ctrl-C ends the command at once.
 */
import { resolve } from 'node:path';
import type { BackupResult } from '../../contract/node/backups.ts';
import { BACKUP_BUDGET } from './node-request.ts';
import { CliError, ownerCall } from './owner-client.ts';
import { print } from './output.ts';

export const BACKUP_USAGE = 'usage: svc-node backup --to DIR [--data DIR] [--json]';

const mib = (bytes: number): string => `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;

export async function backup(dataDir: string, json: boolean, to: string | undefined): Promise<void> {
  if (to === undefined || to === '') throw new CliError(BACKUP_USAGE);
  const cancel = (): void => void ownerCall(dataDir, 'DELETE', '/v1/node/backups/running').catch(() => undefined);
  process.once('SIGINT', cancel);
  let result: BackupResult;
  try {
    ({ body: result } = await ownerCall<BackupResult>(dataDir, 'POST', '/v1/node/backups', { to: resolve(to) }, BACKUP_BUDGET));
  } finally {
    process.off('SIGINT', cancel);
  }
  const text = [
    `backup ${result.backup_id} of ${mib(result.bytes)} in ${resolve(to)}`,
    `${result.chunks_written} of ${result.chunks} chunks new (${mib(result.bytes_written)} written)`,
    `${result.kept} backups kept${result.removed > 0 ? `, ${result.removed} removed` : ''}`,
  ].join('\n');
  return print(result, json, text);
}
