/**
 * Opens a stopped node's encrypted database the way the node does (custody holds the key), so a
 * test can check what was stored and what the schema refuses.
 */
import { join } from 'node:path';
import { Custody } from '../../server/custody/custody.ts';
import { closeDatabase, openDatabase, type Database } from '../../server/store/database.ts';

export async function openNodeDatabase(dataDir: string): Promise<{ db: Database; close(): void }> {
  const custody = await Custody.open({ dataDir, backend: 'key-file', warn() {} });
  const db = openDatabase({ file: join(dataDir, 'node.db'), key: custody.databaseKey() });
  return {
    db,
    close() {
      closeDatabase(db);
      custody.close();
    },
  };
}
