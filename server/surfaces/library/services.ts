/**
 * The library surface's services, wired once per node; routes (and later MCP tools) share them.
 */
import type { NodeContext } from '../../context.ts';
import type { SearchService } from '../../search/service.ts';
import { ownerCertificateOf } from '../../teams/acting-as.ts';
import type { CoreServices } from '../core/services.ts';
import { Bindings } from './bindings/service.ts';
import { BlueprintCatalog } from './catalog/service.ts';
import { Proposals } from './proposals/service.ts';
import { ProfilePublisher } from './catalog/publish.ts';
import { TeamRegistrations } from './shelf/registrations.ts';
import { Shelf } from './shelf/service.ts';

export interface LibraryServices {
  catalog: BlueprintCatalog;
  registrations: TeamRegistrations;
  shelf: Shelf;
  publisher: ProfilePublisher;
  proposals: Proposals;
  bindings: Bindings;
  /** Core's search: the library routes search the team's shelf and the catalog through it. */
  search: SearchService;
  /** The certificate the node's owner acts through (the only one whose `acting_as` is believed). */
  ownerCertificateOf: (teamId: string) => string | null;
}

/** `core` supplies search and the teams (whose owner member may sign for an identity). */
export function createLibraryServices(ctx: NodeContext, core: Pick<CoreServices, 'search' | 'teams'>): LibraryServices {
  const catalog = new BlueprintCatalog(ctx);
  const shelf = new Shelf(ctx, catalog);
  // Search titles profile hits with their names through the one service that parses profile.yaml.
  core.search.readProfilesWith(shelf.profiles);
  return {
    catalog,
    registrations: new TeamRegistrations(ctx),
    shelf,
    publisher: new ProfilePublisher(catalog, shelf),
    proposals: new Proposals(ctx, shelf),
    bindings: new Bindings(ctx, shelf),
    search: core.search,
    ownerCertificateOf: ownerCertificateOf(core.teams),
  };
}
