/**
 * The library surface's services, wired once per node; routes (and later MCP tools) share them.
 */
import type { NodeContext } from '../../context.ts';
import type { SearchService } from '../../search/service.ts';
import { Bindings } from './bindings.ts';
import { BlueprintCatalog } from './catalog.ts';
import { Proposals } from './proposals.ts';
import { ProfilePublisher } from './publish.ts';
import { TeamRegistrations } from './registrations.ts';
import { Shelf } from './shelf.ts';

export interface LibraryServices {
  catalog: BlueprintCatalog;
  registrations: TeamRegistrations;
  shelf: Shelf;
  publisher: ProfilePublisher;
  proposals: Proposals;
  bindings: Bindings;
  /** Core's search: the library routes search the team's shelf and the catalog through it. */
  search: SearchService;
}

export function createLibraryServices(ctx: NodeContext, search: SearchService): LibraryServices {
  const catalog = new BlueprintCatalog(ctx);
  const shelf = new Shelf(ctx, catalog);
  return {
    catalog,
    registrations: new TeamRegistrations(ctx),
    shelf,
    publisher: new ProfilePublisher(catalog, shelf),
    proposals: new Proposals(ctx, shelf),
    bindings: new Bindings(ctx, shelf),
    search,
  };
}
