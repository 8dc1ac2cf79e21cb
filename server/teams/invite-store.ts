/**
 * The `team_invites` table: one-time join codes, kept as their SHA-256 (server/teams/invites.ts).
 * The only module that reads or writes it.
 */
import type { Db } from '../context.ts';
import type { CertificateLifetime } from '../crypto/team-certificate.ts';

export interface InviteRow {
  invite_id: string;
  team_id: string;
  code_sha256: string;
  alias: string;
  lifetime: CertificateLifetime;
  created_at: string;
  expires_at: string;
  used_at: string | null;
  certificate_id: string | null;
  cancelled_at: string | null;
  /** A persistent member's address, named by the owner. */
  address: string | null;
}

export function insertInvite(db: Db, row: Omit<InviteRow, 'used_at' | 'certificate_id' | 'cancelled_at'>): void {
  db.prepare(
    `INSERT INTO team_invites (invite_id, team_id, code_sha256, alias, lifetime, address, created_at, expires_at)
     VALUES (@invite_id, @team_id, @code_sha256, @alias, @lifetime, @address, @created_at, @expires_at)`,
  ).run(row);
}

export function findInviteByCode(db: Db, codeSha256: string): InviteRow | undefined {
  return db.prepare(`SELECT * FROM team_invites WHERE code_sha256 = ?`).get(codeSha256) as InviteRow | undefined;
}

export function findInvite(db: Db, teamId: string, inviteId: string): InviteRow | undefined {
  return db.prepare(`SELECT * FROM team_invites WHERE team_id = ? AND invite_id = ?`).get(teamId, inviteId) as InviteRow | undefined;
}

/** A team's invites still redeemable at `now`: not used, not cancelled, not expired; oldest first. */
export function pendingInvites(db: Db, teamId: string, now: string): InviteRow[] {
  return db
    .prepare(`SELECT * FROM team_invites WHERE team_id = ? AND used_at IS NULL AND cancelled_at IS NULL AND expires_at > ? ORDER BY created_at, invite_id`)
    .all(teamId, now) as InviteRow[];
}

/** Marks the invite used (once): false when it was already used or cancelled. */
export function useInvite(db: Db, inviteId: string, usedAt: string, certificateId: string): boolean {
  return (
    db
      .prepare(`UPDATE team_invites SET used_at = ?, certificate_id = ? WHERE invite_id = ? AND used_at IS NULL AND cancelled_at IS NULL`)
      .run(usedAt, certificateId, inviteId).changes === 1
  );
}

/** Cancels an unused invite (once): false when it was used or already cancelled. */
export function cancelInvite(db: Db, inviteId: string, cancelledAt: string): boolean {
  return (
    db.prepare(`UPDATE team_invites SET cancelled_at = ? WHERE invite_id = ? AND used_at IS NULL AND cancelled_at IS NULL`).run(cancelledAt, inviteId)
      .changes === 1
  );
}
