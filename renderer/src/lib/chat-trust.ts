/**
 * Which messages of a conversation carry the sender's trust chips (the signature badge and who
 * vouches for the address). On every bubble they were noise that taught people to skip them; now
 * they show once per sender, on the sender's first message, and again only when something about
 * that sender changes (another key, another trust in the domain). A signature that is missing,
 * does not match or could not be checked is about that one message, so it always shows.
 */
import type { ChatMessage } from '../api/chat.ts';
import type { ConversationEntry } from './chat.ts';
import { isMine } from './chat.ts';
import { signatureBadge } from './mail.ts';

type TrustFields = Pick<ChatMessage, 'from_agent_id' | 'from_address' | 'from_did' | 'signature' | 'signature_status' | 'from_namespace_trust'>;

/** The keys of the entries (sent, not mine) whose trust chips show, in a conversation's order. */
export function trustShownFor(
  entries: readonly (Pick<ConversationEntry, 'key' | 'delivery'> & { message: TrustFields })[],
  myAgentId: string | null,
): Set<string> {
  const shown = new Set<string>();
  const lastShown = new Map<string, string>();
  for (const entry of entries) {
    if (entry.delivery !== 'sent' || isMine(entry.message, myAgentId)) continue;
    const badge = signatureBadge(entry.message);
    const state = `${badge.text}\n${entry.message.from_namespace_trust ?? ''}`;
    const sender = entry.message.from_address ?? entry.message.from_did;
    if (badge.tone === 'warn' || badge.tone === 'danger' || lastShown.get(sender) !== state) {
      shown.add(entry.key);
      lastShown.set(sender, state);
    }
  }
  return shown;
}
