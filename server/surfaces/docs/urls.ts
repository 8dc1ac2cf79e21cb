/**
 * The URLs the document surface's answers carry, in one place: the services are handed these
 * rather than composing URLs themselves. Read from the node's listeners at each call, since they
 * are known only once the listeners are up.
 */
import type { NodeContext } from '../../context.ts';

export interface DocsUrls {
  /** The docs origin, which serves `/assets/{asset_id}` publicly. */
  origin(): string;
  /** An asset's public bytes. */
  asset(assetId: string): string;
  /** A pending video's one-time upload URL (its token is the capability). */
  upload(assetId: string, token: string): string;
  /** A present link's page: on the public URL when the node has one, so a link works off this machine. */
  present(token: string): string;
}

export function docsUrls(ctx: Pick<NodeContext, 'urls'>): DocsUrls {
  const origin = (): string => ctx.urls.docs_url;
  return {
    origin,
    asset: (assetId) => `${origin()}/assets/${assetId}`,
    upload: (assetId, token) => `${origin()}/v1/assets/${assetId}/upload?token=${token}`,
    present: (token) => `${(ctx.urls.public_url ?? origin()).replace(/\/+$/, '')}/present/${token}`,
  };
}
