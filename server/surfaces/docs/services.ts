/**
 * The document surface's services, wired once per node; routes (and later MCP tools and present
 * links) share them.
 */
import type { NodeContext } from '../../context.ts';
import type { SearchService } from '../../search/service.ts';
import type { CoreServices } from '../core/services.ts';
import { AssetFiles } from './assets/asset-files.ts';
import { Assets } from './assets/service.ts';
import { DocsBilling } from './billing/service.ts';
import { Documents } from './documents/service.ts';
import { Themes } from './theme/service.ts';
import type { ThemeFor } from './present/page/page.ts';
import { PresentLinks } from './present/service.ts';
import { PresentPages } from './present/pages.ts';
import { StorageQuota } from './assets/storage-quota.ts';
import { docsUrls, type DocsUrls } from './urls.ts';
import { VideoUploads } from './assets/video-uploads.ts';
import { revokeEditableLinksOf } from './present/store.ts';
import { ownerCertificateOf } from '../../teams/acting-as.ts';

export interface DocsServices {
  documents: Documents;
  billing: DocsBilling;
  assets: Assets;
  /** Video direct uploads; the node starts and stops their cleanup. */
  uploads: VideoUploads;
  theme: Themes;
  present: PresentLinks;
  /** Read links' pages, built once per pinned version, theme and image set. */
  pages: PresentPages;
  /** The team's presentation theme, as present pages apply it. */
  themeFor: ThemeFor;
  /** The URLs answers carry (assets, uploads, present links). */
  urls: DocsUrls;
  /** The certificate the node's owner acts through (the only one whose `acting_as` is believed). */
  ownerCertificateOf: (teamId: string) => string | null;
  /** Core's search: the documents route searches the team's documents through it. */
  search: SearchService;
}

export interface DocsServicesOptions {
  /** Where uploaded videos are kept: DIR/assets. */
  assetsDir: string;
}

/** `core` supplies the app-event emitter that announces `docs/doc.changed`, the teams, and search. */
export function createDocsServices(ctx: NodeContext, core: Pick<CoreServices, 'appEvents' | 'teams' | 'search'>, options: DocsServicesOptions): DocsServices {
  const urls = docsUrls(ctx);
  const billing = new DocsBilling(ctx.db);
  const files = new AssetFiles(options.assetsDir);
  const quota = new StorageQuota(ctx.db, billing);
  const assets = new Assets(ctx, files, quota, urls);
  const documents = new Documents(ctx, billing, core.appEvents);
  // Search reads version chains (snippets, the index backfill) through the one service that decodes them.
  core.search.readDocumentsWith(documents.history);
  const theme = new Themes(ctx, assets, urls);
  const themeFor: ThemeFor = (teamId) => theme.themeFor(teamId);
  const present = new PresentLinks(ctx, documents, urls);
  // An editable link is a standing docs:write grant of the certificate that minted it.
  core.teams.closesOnRevoke((certificateId, revokedAt) => revokeEditableLinksOf(ctx.db, certificateId, revokedAt));
  return {
    billing,
    documents,
    present,
    pages: new PresentPages(present, assets, themeFor),
    assets,
    uploads: new VideoUploads(ctx, assets, files, quota, urls),
    theme,
    themeFor,
    urls,
    search: core.search,
    ownerCertificateOf: ownerCertificateOf(core.teams),
  };
}
