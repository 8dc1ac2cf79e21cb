/**
 * The document surface's services, wired once per node; routes (and later MCP tools and present
 * links) share them.
 */
import type { NodeContext } from '../../context.ts';
import type { CoreServices } from '../core/services.ts';
import { Assets } from './assets.ts';
import { DocsBilling } from './billing.ts';
import { Documents } from './documents.ts';
import { Themes } from './theme.ts';
import type { ThemeFor } from './present-page/page.ts';
import { PresentLinks } from './present.ts';

export interface DocsServices {
  documents: Documents;
  billing: DocsBilling;
  assets: Assets;
  theme: Themes;
  present: PresentLinks;
  /** The team's presentation theme, as present pages apply it. */
  themeFor: ThemeFor;
}

/** `core` supplies the app-event emitter that announces `docs/doc.changed`. */
export function createDocsServices(ctx: NodeContext, core: Pick<CoreServices, 'appEvents'>): DocsServices {
  const billing = new DocsBilling(ctx.db);
  const assets = new Assets(ctx);
  const documents = new Documents(ctx, billing, core.appEvents);
  const theme = new Themes(ctx, assets);
  return { billing, documents, present: new PresentLinks(ctx, documents), assets, theme, themeFor: (teamId) => theme.themeFor(teamId) };
}
