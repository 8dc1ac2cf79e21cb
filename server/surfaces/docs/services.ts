/**
 * The document surface's services, wired once per node; routes (and later MCP tools and present
 * links) share them.
 */
import type { NodeContext } from '../../context.ts';
import type { CoreServices } from '../core/services.ts';
import { DocsBilling } from './billing.ts';
import { Documents } from './documents.ts';

export interface DocsServices {
  documents: Documents;
  billing: DocsBilling;
}

/** `core` supplies the app-event emitter that announces `docs/doc.changed`. */
export function createDocsServices(ctx: NodeContext, core: Pick<CoreServices, 'appEvents'>): DocsServices {
  const billing = new DocsBilling(ctx.db);
  return { billing, documents: new Documents(ctx, billing, core.appEvents) };
}
