/**
 * Which custody backend a headless start uses. safe-storage is never chosen here: only the
 * desktop shell has Electron's safeStorage to offer.
 */
import { PASSPHRASE_ENV } from './backends/passphrase.ts';
import { readState } from './state-file.ts';
import type { BackendName } from './types.ts';

export const CUSTODY_ENV = 'SVC_NODE_CUSTODY';

export type HeadlessBackend = Exclude<BackendName, 'safe-storage'>;

const HEADLESS: readonly HeadlessBackend[] = ['key-file', 'passphrase', 'keyring'];

export interface ChooseBackendOptions {
  /** The --custody flag, if given. */
  flag?: string | undefined;
  env?: Record<string, string | undefined>;
  /** The backend custody.json records for this data dir, if any. */
  recorded?: BackendName | null;
}

/**
 * An explicit --custody flag or SVC_NODE_CUSTODY wins; then a set SVC_NODE_PASSPHRASE; then the
 * backend the data dir already uses (so `serve --data DIR` on a keyring dir just works); then
 * key-file. A choice that contradicts custody.json is refused later, by custody itself.
 */
export function chooseBackend({ flag, env = process.env, recorded = null }: ChooseBackendOptions): HeadlessBackend {
  const explicit = flag ?? env[CUSTODY_ENV];
  if (explicit !== undefined && explicit !== '') {
    if (explicit === 'safe-storage') {
      throw new Error('the safe-storage custody backend is only available in the desktop app');
    }
    if (!HEADLESS.includes(explicit as HeadlessBackend)) {
      throw new Error(`unknown custody backend "${explicit}"; choose one of ${HEADLESS.join(', ')}`);
    }
    return explicit as HeadlessBackend;
  }
  if (env[PASSPHRASE_ENV]) return 'passphrase';
  if (recorded !== null && recorded !== 'safe-storage') return recorded;
  return 'key-file';
}

/** The backend custody.json records for `dataDir`; null when there is none (or it is unreadable: custody reports that). */
export function recordedBackend(dataDir: string): BackendName | null {
  try {
    return readState(dataDir)?.backend ?? null;
  } catch {
    return null;
  }
}
