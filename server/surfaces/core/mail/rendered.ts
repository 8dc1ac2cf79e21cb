/**
 * A message's body as HTML (ours, issue 14), for readers that show mail as Markdown: rendered by
 * the node's one Markdown renderer and sanitiser (docs/render: markdown-it without raw HTML, then
 * sanitize-html's allow-list, in the render worker). Mail has no assets, so every image becomes
 * its alt text and nothing outside is ever loaded; links keep only http(s)/mailto/#fragment
 * targets and carry rel="noopener noreferrer".
 *
 * Who may read it: the recipient while the message is in its inbox or archive (not after deleting
 * it), and the sender, from Sent (local mail, or mail it queued for another node).
 */
import type { RenderedMail } from '../../../../contract/core/mail.ts';
import type { Db } from '../../../context.ts';
import { notFound } from '../../../errors.ts';
import type { Listener } from '../../../http/listener.ts';
import { renderMarkdownLazily } from '../../docs/render/lazy.ts';

const NO_ASSETS = { assetIds: new Set<string>(), assetUrl: () => '' };

/** The body of a message the caller may read, or a 404. */
export function readableBody(db: Db, agentId: string, messageId: string): string {
  const stored = db
    .prepare(
      `SELECT body FROM messages WHERE message_id = @messageId
         AND ((to_agent_id = @agentId AND deleted_at IS NULL) OR (from_agent_id = @agentId AND origin = 'local'))`,
    )
    .pluck()
    .get({ messageId, agentId }) as string | undefined;
  if (stored !== undefined) return stored;
  const queued = db
    .prepare(`SELECT payload FROM federation_outbox WHERE message_id = ? AND from_agent_id = ? AND kind = 'mail'`)
    .pluck()
    .get(messageId, agentId) as string | undefined;
  if (queued !== undefined) return (JSON.parse(queued) as { body: string }).body;
  throw notFound('Message not found');
}

export async function renderedBody(db: Db, agentId: string, messageId: string, listener: Listener): Promise<RenderedMail> {
  const body = readableBody(db, agentId, messageId);
  return { message_id: messageId, body_html: await renderMarkdownLazily(body, NO_ASSETS, listener) };
}
