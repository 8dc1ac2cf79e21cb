import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KeyringFactory, KeyringLike } from './backends/keyring.ts';
import type { SafeStorageLike } from './backends/safe-storage.ts';
import { Custody, type CustodyOptions } from './custody.ts';
import { CustodyError } from './custody-error.ts';

let root: string;
let dataDir: string;
let warnings: string[];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'svc-custody-'));
  dataDir = join(root, 'data');
  warnings = [];
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

async function open(options: Partial<CustodyOptions> & Pick<CustodyOptions, 'backend'>): Promise<Custody> {
  return Custody.open({ dataDir, env: {}, warn: (m) => warnings.push(m), scryptCost: 10, ...options });
}

async function roundTrip(options: Parameters<typeof open>[0]): Promise<Buffer> {
  const first = await open(options);
  const key = first.databaseKey();
  first.close();
  const again = await open(options);
  expect(again.databaseKey().equals(key)).toBe(true);
  again.close();
  expect(key).toHaveLength(32);
  return key;
}

const state = () => JSON.parse(readFileSync(join(dataDir, 'custody.json'), 'utf8')) as Record<string, unknown>;
const mode = (file: string) => statSync(join(dataDir, file)).mode & 0o777;

async function refusal(promise: Promise<unknown>): Promise<CustodyError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CustodyError);
  return error as CustodyError;
}

describe('key-file backend', () => {
  it('keeps the master secret across reopen in a 0600 file, and warns each time', async () => {
    await roundTrip({ backend: 'key-file' });
    expect(mode('master.key')).toBe(0o600);
    expect(mode('custody.json')).toBe(0o600);
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(state()).toMatchObject({ v: 1, backend: 'key-file', key_file: 'master.key' });
    expect(Number.isNaN(Date.parse(String(state().created_at)))).toBe(false);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/protected only by the file permissions of .*master\.key/);
    expect(warnings[0]).toMatch(/--custody passphrase .*--custody keyring/);
    expect(warnings[0]).not.toContain('\n');
  });

  it('gives different data dirs different database keys', async () => {
    const a = await roundTrip({ backend: 'key-file' });
    dataDir = join(root, 'other');
    const b = await roundTrip({ backend: 'key-file' });
    expect(a.equals(b)).toBe(false);
  });

  it('refuses to overwrite a master.key that has no custody.json', async () => {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(join(dataDir, 'master.key'), Buffer.alloc(32, 7));
    const error = await refusal(open({ backend: 'key-file' }));
    expect(error.code).toBe('secret_exists');
    expect(readFileSync(join(dataDir, 'master.key')).equals(Buffer.alloc(32, 7))).toBe(true);
    expect(existsSync(join(dataDir, 'custody.json'))).toBe(false);
  });

  it('reports a missing master.key instead of making a new one', async () => {
    (await open({ backend: 'key-file' })).close();
    rmSync(join(dataDir, 'master.key'));
    const error = await refusal(open({ backend: 'key-file' }));
    expect(error.code).toBe('secret_missing');
    expect(existsSync(join(dataDir, 'master.key'))).toBe(false);
  });

  it('leaves no temp files behind', async () => {
    await roundTrip({ backend: 'key-file' });
    expect(readdirSync(dataDir).sort()).toEqual(['custody.json', 'master.key']);
  });
});

describe('passphrase backend', () => {
  const env = { SVC_NODE_PASSPHRASE: 'correct horse battery staple' };

  it('keeps the master secret across reopen, with only a wrapped copy on disk', async () => {
    await roundTrip({ backend: 'passphrase', env });
    expect(existsSync(join(dataDir, 'master.key'))).toBe(false);
    expect(state()).toMatchObject({ v: 1, backend: 'passphrase', kdf: 'scrypt', N: 1024, r: 8, p: 1 });
    expect(Buffer.from(String(state().wrapped), 'base64')).toHaveLength(12 + 32 + 16);
    expect(warnings).toEqual([]);
  });

  it('refuses a wrong passphrase clearly', async () => {
    (await open({ backend: 'passphrase', env })).close();
    const error = await refusal(open({ backend: 'passphrase', env: { SVC_NODE_PASSPHRASE: 'wrong horse' } }));
    expect(error.code).toBe('wrong_passphrase');
    expect(error.message).toContain(`SVC_NODE_PASSPHRASE does not unlock the custody secret of ${dataDir}`);
  });

  it('says so when SVC_NODE_PASSPHRASE is not set', async () => {
    const error = await refusal(open({ backend: 'passphrase', env: {} }));
    expect(error.code).toBe('passphrase_missing');
    expect(error.message).toContain('SVC_NODE_PASSPHRASE is not set');
    expect(existsSync(join(dataDir, 'custody.json'))).toBe(false);
  });

  it('uses the recorded scrypt cost, not the caller’s, for an existing secret', async () => {
    const key = (await open({ backend: 'passphrase', env, scryptCost: 11 })).databaseKey();
    const again = await open({ backend: 'passphrase', env, scryptCost: 10 });
    expect(again.databaseKey().equals(key)).toBe(true);
    expect(state().N).toBe(2048);
  });
});

describe('backend changes', () => {
  it('refuses to open a key-file data dir with the passphrase backend, naming both', async () => {
    (await open({ backend: 'key-file' })).close();
    const before = readFileSync(join(dataDir, 'custody.json'), 'utf8');
    const error = await refusal(open({ backend: 'passphrase', env: { SVC_NODE_PASSPHRASE: 'x' } }));
    expect(error.code).toBe('backend_mismatch');
    expect(error.message).toContain('uses the "key-file" backend');
    expect(error.message).toContain('not "passphrase"');
    expect(error.message).toContain('start with --custody key-file');
    expect(readFileSync(join(dataDir, 'custody.json'), 'utf8')).toBe(before);
  });

  it('tells a passphrase data dir opened as key-file to set SVC_NODE_PASSPHRASE', async () => {
    (await open({ backend: 'passphrase', env: { SVC_NODE_PASSPHRASE: 'x' } })).close();
    const error = await refusal(open({ backend: 'key-file' }));
    expect(error.message).toContain('"passphrase" backend');
    expect(error.message).toContain('--custody passphrase with SVC_NODE_PASSPHRASE set');
    expect(existsSync(join(dataDir, 'master.key'))).toBe(false);
  });

  it('rejects a damaged custody.json', async () => {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(join(dataDir, 'custody.json'), '{"v":1,"backend":"floppy"');
    expect((await refusal(open({ backend: 'key-file' }))).code).toBe('state_invalid');
    writeFileSync(join(dataDir, 'custody.json'), '{"v":2,"backend":"key-file"}');
    expect((await refusal(open({ backend: 'key-file' }))).message).toMatch(/version 2/);
  });
});

class FakeKeyring {
  readonly entries = new Map<string, string>();
  failure: string | null = null;

  readonly factory: KeyringFactory = (service, account) => {
    const id = `${service}/${account}`;
    const check = () => {
      if (this.failure) throw new Error(this.failure);
    };
    const entry: KeyringLike = {
      getPassword: () => (check(), this.entries.get(id) ?? null),
      setPassword: (value) => (check(), void this.entries.set(id, value)),
      deletePassword: () => (check(), this.entries.delete(id)),
    };
    return entry;
  };
}

describe('keyring backend', () => {
  it('keeps the master secret in the keyring across reopen', async () => {
    const fake = new FakeKeyring();
    await roundTrip({ backend: 'keyring', keyring: fake.factory });
    const { keyring_service, keyring_account } = state();
    expect(keyring_service).toBe('svc-node');
    expect(String(keyring_account)).toMatch(/^master-[0-9a-f]{16}$/);
    const stored = fake.entries.get(`svc-node/${String(keyring_account)}`);
    expect(Buffer.from(stored!, 'base64')).toHaveLength(32);
    expect(readFileSync(join(dataDir, 'custody.json'), 'utf8')).not.toContain(stored);
  });

  it('turns a platform failure into a clear error and writes no state', async () => {
    const fake = new FakeKeyring();
    fake.failure = "Couldn't access platform storage: AccessDenied";
    const error = await refusal(open({ backend: 'keyring', keyring: fake.factory }));
    expect(error.code).toBe('keyring_unavailable');
    expect(error.message).toContain("Couldn't access platform storage: AccessDenied");
    expect(error.message).toContain('--custody passphrase or --custody key-file');
    expect(existsSync(join(dataDir, 'custody.json'))).toBe(false);
  });

  it('reports a keyring that fails later, and one that lost the entry', async () => {
    const fake = new FakeKeyring();
    (await open({ backend: 'keyring', keyring: fake.factory })).close();
    fake.failure = 'Secret Service: no result found';
    const locked = await refusal(open({ backend: 'keyring', keyring: fake.factory }));
    expect(locked.code).toBe('keyring_unavailable');
    expect(locked.message).toContain('unlock the OS keyring');
    fake.failure = null;
    fake.entries.clear();
    const gone = await refusal(open({ backend: 'keyring', keyring: fake.factory }));
    expect(gone.code).toBe('secret_missing');
  });

  it('refuses a keyring that does not keep what it was given', async () => {
    const forgetful: KeyringFactory = () => ({ getPassword: () => null, setPassword: () => {}, deletePassword: () => false });
    expect((await refusal(open({ backend: 'keyring', keyring: forgetful }))).message).toContain('did not keep');
  });
});

class FakeSafeStorage implements SafeStorageLike {
  calls: string[] = [];
  osBackend = 'gnome_libsecret';
  available = true;
  reEncrypt = false;
  #generation = 1;

  async isAsyncEncryptionAvailable() {
    this.calls.push('isAsyncEncryptionAvailable');
    return this.available;
  }
  async encryptStringAsync(plainText: string) {
    this.calls.push('encryptStringAsync');
    return Buffer.from(`g${this.#generation}:${Buffer.from(plainText).reverse().toString('hex')}`);
  }
  async decryptStringAsync(encrypted: Buffer) {
    this.calls.push('decryptStringAsync');
    const [, hex] = encrypted.toString().split(':');
    const result = Buffer.from(hex!, 'hex').reverse().toString();
    return { result, shouldReEncrypt: this.reEncrypt };
  }
  getSelectedStorageBackend() {
    return this.osBackend;
  }
  rotate() {
    this.#generation++;
    this.reEncrypt = true;
  }
}

describe('safe-storage backend', () => {
  it('keeps the master secret across reopen and records the OS store', async () => {
    const safeStorage = new FakeSafeStorage();
    await roundTrip({ backend: 'safe-storage', safeStorage });
    expect(state()).toMatchObject({ backend: 'safe-storage', os_backend: 'gnome_libsecret', plaintext_fallback: false });
    expect(safeStorage.calls.filter((c) => c === 'encryptStringAsync')).toHaveLength(1);
    expect(safeStorage.calls.filter((c) => c === 'decryptStringAsync')).toHaveLength(1);
  });

  it('refuses basic_text unless the plaintext fallback is explicitly allowed, then remembers the consent', async () => {
    const safeStorage = new FakeSafeStorage();
    safeStorage.osBackend = 'basic_text';
    const error = await refusal(open({ backend: 'safe-storage', safeStorage }));
    expect(error.code).toBe('plaintext_refused');
    expect(safeStorage.calls).not.toContain('encryptStringAsync');
    expect(existsSync(join(dataDir, 'custody.json'))).toBe(false);

    const key = (await open({ backend: 'safe-storage', safeStorage, allowPlaintextFallback: true })).databaseKey();
    expect(state()).toMatchObject({ os_backend: 'basic_text', plaintext_fallback: true });
    expect((await open({ backend: 'safe-storage', safeStorage })).databaseKey().equals(key)).toBe(true);
  });

  it('refuses a different OS store than the recorded one, naming the --password-store flag', async () => {
    const safeStorage = new FakeSafeStorage();
    (await open({ backend: 'safe-storage', safeStorage })).close();
    safeStorage.osBackend = 'kwallet6';
    safeStorage.calls = [];
    const error = await refusal(open({ backend: 'safe-storage', safeStorage }));
    expect(error.code).toBe('os_backend_mismatch');
    expect(error.message).toContain('"gnome_libsecret"');
    expect(error.message).toContain('"kwallet6"');
    expect(error.message).toContain('--password-store=gnome-libsecret');
    expect(safeStorage.calls).not.toContain('decryptStringAsync');
  });

  it('re-encrypts when safeStorage asks to, and the new ciphertext opens', async () => {
    const safeStorage = new FakeSafeStorage();
    const key = (await open({ backend: 'safe-storage', safeStorage })).databaseKey();
    const before = String(state().ciphertext);
    safeStorage.rotate();
    safeStorage.calls = [];
    expect((await open({ backend: 'safe-storage', safeStorage })).databaseKey().equals(key)).toBe(true);
    expect(safeStorage.calls).toEqual(['isAsyncEncryptionAvailable', 'decryptStringAsync', 'encryptStringAsync']);
    const after = String(state().ciphertext);
    expect(after).not.toBe(before);
    expect(Buffer.from(after, 'base64').toString()).toMatch(/^g2:/);
    safeStorage.reEncrypt = false;
    expect((await open({ backend: 'safe-storage', safeStorage })).databaseKey().equals(key)).toBe(true);
  });

  it('refuses when safeStorage cannot encrypt, and when it is not provided', async () => {
    const safeStorage = new FakeSafeStorage();
    safeStorage.available = false;
    expect((await refusal(open({ backend: 'safe-storage', safeStorage }))).code).toBe('safe_storage_unavailable');
    expect((await refusal(open({ backend: 'safe-storage' }))).message).toContain('only in the desktop app');
  });
});
