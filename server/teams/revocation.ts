/**
 * What revoking a member certificate closes besides the certificate itself.
 *
 * An editable present link saves versions credited to the certificate that minted it, so it is a
 * standing grant of that certificate's docs:write: it is revoked in the same transaction as the
 * certificate, and a page already open gets the links' refusal on its next save.
 *
 * Read links stay open until they expire (seven days at most) or are revoked one by one from the
 * listing: each shows one pinned version the member could already read and share, grants nothing
 * new, and is often what the team handed to someone outside (a pitch, a memo), which revoking a
 * member should not silently break.
 */
import type { Db } from '../context.ts';

/** Revokes every still-open editable link minted by the certificate; returns how many. */
export function closeEditableLinks(db: Db, certificateId: string, revokedAt: string): number {
  return db
    .prepare(`UPDATE present_links SET revoked_at = ? WHERE certificate_id = ? AND editable = 1 AND revoked_at IS NULL`)
    .run(revokedAt, certificateId).changes;
}
