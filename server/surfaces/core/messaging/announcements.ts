/**
 * Upstream's announcements beside a received message
 * (docs/adr/0002-did-svc-identity-log-and-namespace-records.md): when the key that signed it came
 * from a rotation on this node, the retiring key's signed word for it; when its sender took over an
 * address by a replacement, the namespace controller's. A client that pinned the old key verifies
 * these to accept the new one; without them it sees a key change.
 */
import type { RotationAnnouncement } from '../../../../contract/core/identities.ts';
import type { ReplacementAnnouncement } from '../../../../contract/core/namespaces.ts';
import type { Db } from '../../../context.ts';
import { rotationAnnouncementTo } from '../identities/store/agents.ts';
import { replacementAnnouncementTo } from '../namespaces/store.ts';

export interface MessageAnnouncements {
  rotation_announcement: RotationAnnouncement | null;
  replacement_announcement: ReplacementAnnouncement | null;
}

/** The announcements for a message signed with `fromDid` by the sender at `fromAddress` (unsigned mail has none). */
export function announcementsFor(db: Db, message: { from_did: string; from_address: string | null; signature: string }): MessageAnnouncements {
  if (message.signature === '' || message.from_did === '') return { rotation_announcement: null, replacement_announcement: null };
  return {
    rotation_announcement: rotationAnnouncementTo(db, message.from_did) ?? null,
    replacement_announcement: message.from_address === null ? null : (replacementAnnouncementTo(db, message.from_did, message.from_address) ?? null),
  };
}

/** Upstream's `signing_key_id`: the key that signed the message (its `from_did`); null when it is unsigned. */
export const signingKeyId = (message: { from_did: string; signature: string }): string | null =>
  message.signature === '' || message.from_did === '' ? null : message.from_did;
