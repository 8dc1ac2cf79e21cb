/**
 * A new data dir made from elsewhere (a recovery kit, a linked device): built in a temporary
 * sibling folder and renamed into place only once whole, so a failure at any step leaves nothing,
 * and never over a node or anything else (the folder must be absent or empty, when asked and
 * again just before the rename). Custody gets a new secret there (the backend `serve` would
 * choose), then the database is made and the caller's steps run in one transaction.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmdirSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { Custody } from '../custody/custody.ts';
import { chooseBackend } from '../custody/select.ts';
import { STATE_FILE } from '../custody/state-file.ts';
import type { Warn } from '../custody/types.ts';
import { closeDatabase, openDatabase, type Database } from '../store/database.ts';

/** A data dir that cannot be made where it was asked for. */
export class RestoreRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RestoreRefused';
  }
}

/** Why `dataDir` cannot become a new node, or null when it can (absent, or an empty folder). */
export function occupiedReason(dataDir: string): string | null {
  if (!existsSync(dataDir)) return null;
  let entries: string[];
  try {
    entries = readdirSync(dataDir);
  } catch {
    return `${dataDir} exists and is not a folder`;
  }
  if (entries.includes(STATE_FILE) || entries.includes('node.db')) return `${dataDir} already holds an svc-node; use a new folder`;
  if (entries.length > 0) return `${dataDir} is not empty; use a new folder`;
  return null;
}

/** The absolute data dir, refused unless it can become a new node. */
export function freeDataDir(dataDir: string): string {
  const absolute = resolve(dataDir);
  const occupied = occupiedReason(absolute);
  if (occupied !== null) throw new RestoreRefused(occupied);
  return absolute;
}

export interface BuildDataDirOptions<T> {
  /** An absolute data dir that freeDataDir accepted. */
  dataDir: string;
  /** Where SVC_NODE_CUSTODY / SVC_NODE_PASSPHRASE are read. */
  env: Record<string, string | undefined>;
  warn?: Warn | undefined;
  /** Before the database opens: fill the temporary folder (a database from a backup, its files). */
  prepare?: (temp: string, custody: Custody) => Promise<void>;
  /** In one transaction on the new database, custody attached to it. */
  install: (custody: Custody, db: Database) => T;
}

export async function buildDataDir<T>(options: BuildDataDirOptions<T>): Promise<T> {
  const { dataDir, env } = options;
  const backend = chooseBackend({ env });
  const temp = join(dirname(dataDir), `.${basename(dataDir)}.building-${randomBytes(6).toString('hex')}`);
  let custody: Custody | null = null;
  let db: Database | null = null;
  try {
    mkdirSync(dirname(dataDir), { recursive: true, mode: 0o700 });
    custody = await Custody.open({ dataDir: temp, backend, env, ...(options.warn ? { warn: options.warn } : {}) });
    await options.prepare?.(temp, custody);
    db = openDatabase({ file: join(temp, 'node.db'), key: custody.databaseKey() });
    custody.attach(db);
    const opened = custody;
    const database = db;
    const result = database.transaction(() => options.install(opened, database))();
    closeDatabase(db);
    db = null;
    custody.close();
    custody = null;
    const late = occupiedReason(dataDir);
    if (late !== null) throw new RestoreRefused(late);
    if (existsSync(dataDir)) rmdirSync(dataDir);
    renameSync(temp, dataDir);
    return result;
  } catch (error) {
    if (db !== null) closeDatabase(db);
    custody?.close();
    rmSync(temp, { recursive: true, force: true });
    throw error;
  }
}
