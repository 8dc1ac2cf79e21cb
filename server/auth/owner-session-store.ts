/**
 * The `owner_sessions` table: the browser sessions of the node's owner, each as the SHA-256 of its
 * secret with when it was made, last used, when it ends at the latest, and whether it was revoked.
 * The only module that reads or writes it; owner-sessions.ts makes and checks the sessions.
 */
import type { Db } from '../context.ts';

export interface OwnerSessionRow {
  session_id: string;
  /** sha256 hex of the whole secret. */
  secret_sha256: string;
  created_at: string;
  last_used_at: string;
  /** The absolute end, however often it is used. */
  expires_at: string;
  /** The browser's User-Agent when it signed in (shortened), so the owner can tell sessions apart. */
  client: string | null;
  revoked_at: string | null;
}

export function insertOwnerSession(db: Db, row: Omit<OwnerSessionRow, 'revoked_at'>): void {
  db.prepare(
    `INSERT INTO owner_sessions (session_id, secret_sha256, created_at, last_used_at, expires_at, client)
     VALUES (@session_id, @secret_sha256, @created_at, @last_used_at, @expires_at, @client)`,
  ).run(row);
}

export function ownerSessionBySecretHash(db: Db, secretSha256: string): OwnerSessionRow | null {
  return (db.prepare(`SELECT * FROM owner_sessions WHERE secret_sha256 = ?`).get(secretSha256) as OwnerSessionRow | undefined) ?? null;
}

export function ownerSessionById(db: Db, sessionId: string): OwnerSessionRow | null {
  return (db.prepare(`SELECT * FROM owner_sessions WHERE session_id = ?`).get(sessionId) as OwnerSessionRow | undefined) ?? null;
}

/** Sessions not revoked, used since `idleSince` and not past their end at `nowIso`; newest first. */
export function liveOwnerSessions(db: Db, nowIso: string, idleSince: string): OwnerSessionRow[] {
  return db
    .prepare(
      `SELECT * FROM owner_sessions
       WHERE revoked_at IS NULL AND expires_at > ? AND last_used_at > ?
       ORDER BY created_at DESC, session_id`,
    )
    .all(nowIso, idleSince) as OwnerSessionRow[];
}

export function touchOwnerSession(db: Db, sessionId: string, usedAt: string): void {
  db.prepare(`UPDATE owner_sessions SET last_used_at = ? WHERE session_id = ?`).run(usedAt, sessionId);
}

/** Revokes one session if it is still live; true when it was. */
export function revokeOwnerSession(db: Db, sessionId: string, revokedAt: string): boolean {
  return db.prepare(`UPDATE owner_sessions SET revoked_at = ? WHERE session_id = ? AND revoked_at IS NULL`).run(revokedAt, sessionId).changes > 0;
}

/** The sessions not revoked yet, but `keepId`. */
export function unrevokedOwnerSessionIds(db: Db, keepId: string | null): string[] {
  return (db.prepare(`SELECT session_id FROM owner_sessions WHERE revoked_at IS NULL AND session_id IS NOT ?`).all(keepId) as { session_id: string }[]).map(
    (row) => row.session_id,
  );
}

/** Forgets sessions past their absolute end (revoked or not): nothing can be told about them any more. */
export function pruneOwnerSessions(db: Db, nowIso: string): number {
  db.prepare(`DELETE FROM owner_session_keys WHERE session_id IN (SELECT session_id FROM owner_sessions WHERE expires_at <= ?)`).run(nowIso);
  return db.prepare(`DELETE FROM owner_sessions WHERE expires_at <= ?`).run(nowIso).changes;
}

/** An identity key the session minted: it ends with the session. */
export function bindOwnerSessionKey(db: Db, sessionId: string, apiKeyId: string): void {
  db.prepare(`INSERT INTO owner_session_keys (api_key_id, session_id) VALUES (?, ?)`).run(apiKeyId, sessionId);
}

/** The identity keys the session minted. */
export function ownerSessionKeyIds(db: Db, sessionId: string): string[] {
  return (db.prepare(`SELECT api_key_id FROM owner_session_keys WHERE session_id = ?`).all(sessionId) as { api_key_id: string }[]).map((row) => row.api_key_id);
}
