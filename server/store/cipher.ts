/**
 * The node's cipher settings and `key` on a new connection, before SQLite reads a single page.
 * Every connection to the node's database (the node's own, store/database.ts; the backup
 * worker's reader, recovery/backup/snapshot-store.ts) sets them here, since they must match for
 * any page to decrypt. No imports: the backup worker's chunk loads it on its own.
 */
import type SQLite from 'better-sqlite3-multiple-ciphers';

export function keyConnection(db: SQLite.Database, key: Uint8Array): void {
  db.pragma("cipher='sqlcipher'");
  db.pragma('legacy=4');
  db.pragma(`key="x'${Buffer.from(key).toString('hex')}'"`);
}
