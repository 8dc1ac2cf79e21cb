/**
 * Helpers for the security suite: secrets as the byte patterns a leak would leave (a seed in raw
 * bytes, hex, and base64/base64url at any alignment; an API key as its text and its hex body), a
 * scan of any text or bytes for them, a dump of every value in a decrypted database, a stopped
 * node's signing seeds read back through custody's own code, and `svc-node serve --log`, whose logs
 * the test can read.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { openEncryptionKeysBackup, openKeyBackup } from '../../server/custody/backup.ts';
import { Custody } from '../../server/custody/custody.ts';
import { closeDatabase, openDatabase, type Database } from '../../server/store/database.ts';
import { startServedNode, type ServedNode } from '../support/served-node.ts';

/** One secret and every byte pattern that would betray it. */
export interface Secret {
  label: string;
  needles: Buffer[];
}

/**
 * The base64 runs that encode `bytes` whatever bytes surround them: for each of the three
 * alignments, the 4-character groups that encode only bytes of `bytes` (40 characters of a
 * 32-byte seed), so a seed inside a longer blob (PKCS#8, PEM, JWK, seed || public key) is found.
 */
function base64Runs(bytes: Buffer): string[] {
  const runs: string[] = [];
  for (let shift = 0; shift < 3; shift++) {
    const text = Buffer.concat([Buffer.alloc(shift), bytes]).toString('base64');
    const first = Math.ceil(shift / 3);
    const end = Math.floor((shift + bytes.length) / 3);
    runs.push(text.slice(first * 4, end * 4));
  }
  return runs;
}

/** A 32-byte signing seed: raw, hex (either case), base64 and base64url at any alignment. */
export function seedSecret(label: string, seed: Buffer): Secret {
  const runs = base64Runs(seed);
  const texts = new Set([seed.toString('hex'), seed.toString('hex').toUpperCase(), ...runs, ...runs.map((run) => run.replace(/\+/g, '-').replace(/\//g, '_'))]);
  return { label, needles: [Buffer.from(seed), ...[...texts].map((text) => Buffer.from(text))] };
}

/** A bearer secret such as an `svc_sk_` key: its text, and for an API key its 64 hex digits alone. */
export function tokenSecret(label: string, token: string): Secret {
  const body = /^svc_(?:sk|ot)_([0-9a-f]{64})$/.exec(token)?.[1];
  return { label, needles: [Buffer.from(token), ...(body ? [Buffer.from(body)] : [])] };
}

/** Labels of the secrets that occur in `haystack`. */
export function secretsIn(haystack: string | Buffer, secrets: readonly Secret[]): string[] {
  const bytes = typeof haystack === 'string' ? Buffer.from(haystack) : haystack;
  return secrets.filter((secret) => secret.needles.some((needle) => bytes.includes(needle))).map((secret) => secret.label);
}

/** Every TEXT and BLOB value of every table (virtual and shadow tables too), by `table.column`. */
export function dumpDatabase(db: Database): { where: string; value: Buffer }[] {
  const values: { where: string; value: Buffer }[] = [];
  const tables = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).pluck().all() as string[];
  for (const table of tables) {
    for (const row of db.prepare(`SELECT * FROM "${table.replace(/"/g, '""')}"`).all() as Record<string, unknown>[]) {
      for (const [column, value] of Object.entries(row)) {
        if (typeof value === 'string') values.push({ where: `${table}.${column}`, value: Buffer.from(value) });
        else if (Buffer.isBuffer(value)) values.push({ where: `${table}.${column}`, value });
      }
    }
  }
  return values;
}

/** Every regular file under `dir`, by path, with its bytes. */
export function filesUnder(dir: string): { path: string; bytes: Buffer }[] {
  const files: { path: string; bytes: Buffer }[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = statSync(path);
    if (stat.isDirectory()) files.push(...filesUnder(path));
    else if (stat.isFile()) files.push({ path, bytes: readFileSync(path) });
  }
  return files;
}

export interface CustodyKey {
  keyId: string;
  purpose: string;
  didKey: string;
  seed: Buffer;
}

export interface StoppedNode {
  db: Database;
  /** The SQLCipher key custody derives for this data dir. */
  databaseKey: Buffer;
  /** Every live signing key in custody, with its seed. */
  keys: CustodyKey[];
  /** Every encryption key in custody not destroyed (current and archived), with its private key. */
  encryptionKeys: { keyId: string; privateKey: Buffer }[];
  close(): void;
}

const EXPORT_PASSPHRASE = 'security-suite export passphrase';

/**
 * Opens a stopped key-file node's database the way the node does, and reads every live signing
 * seed and encryption private key back through custody's own exports (passphrase-sealed backups,
 * opened here): custody has no method that returns a private key, and the test uses only what it
 * ships.
 */
export async function openStoppedNode(dataDir: string): Promise<StoppedNode> {
  const custody = await Custody.open({ dataDir, backend: 'key-file', warn() {}, scryptCost: 10 });
  const databaseKey = custody.databaseKey();
  const db = openDatabase({ file: join(dataDir, 'node.db'), key: databaseKey });
  custody.attach(db);
  const rows = db.prepare('SELECT key_id, purpose, did_key FROM custody_keys WHERE wrapped_seed IS NOT NULL ORDER BY created_at').all() as {
    key_id: string;
    purpose: string;
    did_key: string;
  }[];
  const keys = rows.map((row) => {
    const { seed, didKey } = openKeyBackup(custody.exportKey(row.key_id, EXPORT_PASSPHRASE), EXPORT_PASSPHRASE);
    return { keyId: row.key_id, purpose: row.purpose, didKey, seed };
  });
  const encryptionKeyIds = db
    .prepare('SELECT key_id FROM custody_encryption_keys WHERE wrapped_private IS NOT NULL ORDER BY created_at')
    .pluck()
    .all() as string[];
  const privateKeys =
    encryptionKeyIds.length === 0 ? [] : openEncryptionKeysBackup(custody.exportEncryptionKeys(encryptionKeyIds, EXPORT_PASSPHRASE), EXPORT_PASSPHRASE);
  const encryptionKeys = encryptionKeyIds.map((keyId, i) => ({ keyId, privateKey: privateKeys[i]! }));
  return {
    db,
    databaseKey,
    keys,
    encryptionKeys,
    close() {
      closeDatabase(db);
      custody.close();
    },
  };
}

export interface LoggedNode {
  t: ServedNode;
  dataDir: string;
  /** Stops the process (SIGTERM, clean shutdown) and returns everything it wrote. */
  stop(): Promise<{ stdout: string; stderr: string }>;
}

/**
 * `svc-node serve --log` on a fresh data dir, driven by the usual helpers (identities, teams,
 * documents). Fastify's logger writes to the process's stdout, so a process is the one place
 * where every log line can be read without printing it.
 */
export async function startLoggedNode(): Promise<LoggedNode> {
  const t = await startServedNode({ args: ['--log'], prefix: 'svc-node-security-' });
  return {
    t,
    dataDir: t.dataDir,
    async stop() {
      const result = await t.stop();
      return { stdout: result.stdout, stderr: result.stderr };
    },
  };
}
