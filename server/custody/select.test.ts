import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chooseBackend, recordedBackend } from './select.ts';

describe('chooseBackend', () => {
  it('lets an explicit flag win over everything', () => {
    const env = { SVC_NODE_CUSTODY: 'keyring', SVC_NODE_PASSPHRASE: 'x' };
    expect(chooseBackend({ flag: 'key-file', env, recorded: 'passphrase' })).toBe('key-file');
  });

  it('reads SVC_NODE_CUSTODY when no flag is given', () => {
    expect(chooseBackend({ env: { SVC_NODE_CUSTODY: 'keyring', SVC_NODE_PASSPHRASE: 'x' } })).toBe('keyring');
  });

  it('picks passphrase when SVC_NODE_PASSPHRASE is set', () => {
    expect(chooseBackend({ env: { SVC_NODE_PASSPHRASE: 'x' }, recorded: 'keyring' })).toBe('passphrase');
  });

  it('then follows the data dir’s recorded backend, else key-file', () => {
    expect(chooseBackend({ env: {}, recorded: 'keyring' })).toBe('keyring');
    expect(chooseBackend({ env: {}, recorded: 'safe-storage' })).toBe('key-file');
    expect(chooseBackend({ env: {} })).toBe('key-file');
    expect(chooseBackend({ env: { SVC_NODE_CUSTODY: '', SVC_NODE_PASSPHRASE: '' } })).toBe('key-file');
  });

  it('rejects unknown names and safe-storage outside the desktop app', () => {
    expect(() => chooseBackend({ flag: 'floppy', env: {} })).toThrow('unknown custody backend "floppy"; choose one of key-file, passphrase, keyring');
    expect(() => chooseBackend({ flag: 'safe-storage', env: {} })).toThrow(/only available in the desktop app/);
  });
});

describe('recordedBackend', () => {
  it('reads the backend from custody.json, and is null without a readable one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-select-'));
    try {
      expect(recordedBackend(dir)).toBeNull();
      writeFileSync(join(dir, 'custody.json'), JSON.stringify({ v: 1, backend: 'keyring', created_at: 'x' }));
      expect(recordedBackend(dir)).toBe('keyring');
      writeFileSync(join(dir, 'custody.json'), '{');
      expect(recordedBackend(dir)).toBeNull();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
