/**
 * Large data sets for the scale benchmarks, written straight into the node's database by copying
 * rows the API wrote, so a million rows take seconds instead of a million requests.
 */
import { randomUUID } from 'node:crypto';
import { checkPayloadFiles } from '../server/surfaces/library/domain/payload.ts';
import { profileDigest } from '../server/surfaces/library/domain/digest.ts';
import { toJson } from '../server/surfaces/library/domain/json-columns.ts';
import type { Database } from '../server/store/database.ts';
import { openNodeDatabase } from '../test/support/database.ts';
import { profileFiles } from '../test/support/library.ts';
import type { BenchNode } from './fixtures.ts';
import type { Member } from './team.ts';
import type { WorkerServer } from './server-worker.ts';

/** An INSERT of `columns` by name, so a copied row can go in with some values replaced. */
function insertInto(db: Database, table: string, columns: string[]) {
  return db.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`);
}

/** Copies one real signed message `count` times into `agentId`'s inbox. */
export async function seedInbox(bench: BenchNode, agentId: string, template: string, count: number): Promise<void> {
  await bench.node.close();
  const { db, close } = await openNodeDatabase(bench.dataDir);
  try {
    // Random message_ids land all over the unique index: with SQLite's default 2 MB page cache
    // most inserts would read and decrypt pages from disk.
    db.pragma('cache_size=-262144');
    const row = db.prepare(`SELECT * FROM messages WHERE message_id = ?`).get(template) as Record<string, unknown>;
    const insert = insertInto(
      db,
      'messages',
      Object.keys(row).filter((c) => c !== 'id'),
    );
    const batch = db.transaction((n: number) => {
      for (let i = 0; i < n; i++) insert.run({ ...row, message_id: randomUUID(), to_agent_id: agentId, read_at: i % 3 === 0 ? row.created_at : null });
    });
    for (let done = 0; done < count; done += 50_000) batch(Math.min(50_000, count - done));
  } finally {
    close();
  }
  await bench.restart();
}

/** `p-00042`: zero-padded, so ref order is number order. */
export const shelfRef = (i: number): string => `p-${String(i).padStart(5, '0')}`;

/** A profile's files as POST /v1/profiles stores them: sorted, digests recomputed. */
export const storedProfileFiles = (ref: string) => checkPayloadFiles(profileFiles({ ref }), []);

/**
 * A shelf of `count` profiles `shelfRef(0..count-1)`: two made through the API, the rest copies of
 * the second one's rows, each with its own ref and content (profile.yaml's id is the ref) and the
 * digest the API would compute. Written through a second connection while the node runs: WAL
 * allows it, and the node holds no shelf rows in memory (it caches manifests by content digest).
 */
export async function seedShelf(node: WorkerServer, team: Member, count: number): Promise<void> {
  for (const ref of [shelfRef(0), shelfRef(1)]) {
    const body = JSON.stringify({ files: profileFiles({ ref }) });
    await team.send('POST', '/v1/profiles', team.sign('POST', '/v1/profiles', body), body);
  }
  const { db, close } = await openNodeDatabase(node.dataDir);
  try {
    const key = [team.teamId, shelfRef(1)];
    const profile = db.prepare(`SELECT * FROM shelf_profiles WHERE team_id = ? AND profile_ref = ?`).get(...key) as Record<string, unknown>;
    const version = db.prepare(`SELECT * FROM shelf_versions WHERE team_id = ? AND profile_ref = ?`).get(...key) as Record<string, unknown>;
    const insertProfile = insertInto(db, 'shelf_profiles', Object.keys(profile));
    const insertVersion = insertInto(
      db,
      'shelf_versions',
      Object.keys(version).filter((c) => c !== 'seq'),
    );
    db.transaction(() => {
      for (let i = 2; i < count; i++) {
        const ref = shelfRef(i);
        const files = storedProfileFiles(ref);
        insertProfile.run({ ...profile, profile_ref: ref });
        insertVersion.run({ ...version, profile_ref: ref, files: toJson(files), digest: profileDigest(files) });
      }
    })();
  } finally {
    close();
  }
}
