/**
 * A message's body as HTML (ours), for readers that show mail as Markdown: rendered by
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
import { renderMarkdownLazily } from '../../../markdown/lazy.ts';
import { readableMailBody } from './store/messages.ts';
import { queuedMailBody } from './store/sent.ts';

const NO_ASSETS = { assetIds: new Set<string>(), assetUrl: () => '' };

export async function renderedBody(db: Db, agentId: string, messageId: string, listener: Listener): Promise<RenderedMail> {
  const body = readableMailBody(db, { agentId, messageId }) ?? queuedMailBody(db, agentId, messageId);
  if (body === undefined) throw notFound('SVC_ERR_MESSAGE_NOT_FOUND', 'Message not found');
  return { message_id: messageId, body_html: await renderMarkdownLazily(body, NO_ASSETS, listener) };
}
