/**
 * The `peers` table: the owner's peer table, one namespace domain (lowercase) to the origin of the
 * node that answers for it. directory.ts is its one user.
 */
import type { Peer } from '../../contract/node/peers.ts';
import type { Db } from '../context.ts';

/** A row is the peer as the owner API shows it, but for what waits for it (outbox-store.ts). */
export type PeerRow = Omit<Peer, 'queue'>;

export function listPeers(db: Db): PeerRow[] {
  return db.prepare(`SELECT domain, url, created_at, updated_at FROM peers ORDER BY domain`).all() as PeerRow[];
}

export function findPeer(db: Db, domain: string): PeerRow | undefined {
  return db.prepare(`SELECT domain, url, created_at, updated_at FROM peers WHERE domain = ?`).get(domain) as PeerRow | undefined;
}

/** Adds the peer, or points the domain at a new url (keeping when it was first added); returns it as stored. */
export function upsertPeer(db: Db, domain: string, url: string, now: string): PeerRow {
  return db
    .prepare(
      `INSERT INTO peers (domain, url, created_at, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (domain) DO UPDATE SET url = excluded.url, updated_at = excluded.updated_at
       RETURNING domain, url, created_at, updated_at`,
    )
    .get(domain, url, now, now) as PeerRow;
}

/** False when there was no peer for the domain. */
export function deletePeer(db: Db, domain: string): boolean {
  return db.prepare(`DELETE FROM peers WHERE domain = ?`).run(domain).changes > 0;
}
