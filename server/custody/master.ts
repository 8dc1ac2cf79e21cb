/**
 * Loads the data dir's master secret through the recorded backend, or creates one on first run.
 * A different backend than the recorded one is refused: switching would either fail to decrypt
 * or quietly weaken protection, and the user should decide that, not the node.
 */
import { randomBytes } from 'node:crypto';
import { CustodyError } from './custody-error.ts';
import { readState, statePath, writeState } from './state-file.ts';
import type { BackendName, CustodyBackend } from './types.ts';

const HOW_TO_START: Record<BackendName, string> = {
  'key-file': '--custody key-file, or SVC_NODE_CUSTODY=key-file',
  passphrase: '--custody passphrase with SVC_NODE_PASSPHRASE set',
  keyring: '--custody keyring, or SVC_NODE_CUSTODY=keyring',
  'safe-storage': 'the desktop app, which holds it in Electron safeStorage',
};

export async function openMasterSecret(dataDir: string, backend: CustodyBackend): Promise<Buffer> {
  const state = readState(dataDir);
  if (state === null) {
    const secret = randomBytes(32);
    const fields = await backend.store(secret);
    writeState(dataDir, { ...fields, v: 1, backend: backend.name, created_at: new Date().toISOString() });
    return secret;
  }
  if (state.backend !== backend.name) {
    throw new CustodyError(
      'backend_mismatch',
      `custody in ${dataDir} uses the "${state.backend}" backend (${statePath(dataDir)}), not "${backend.name}"; ` +
        `start with ${HOW_TO_START[state.backend]}. svc-node never switches custody backends by itself.`,
    );
  }
  const { secret, restate } = await backend.load(state);
  if (restate) writeState(dataDir, { ...state, ...restate });
  return secret;
}
