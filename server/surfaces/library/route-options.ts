import type { LibraryServices } from './services.ts';

/** What every library route plugin is registered with. */
export interface LibraryRouteOptions {
  services: LibraryServices;
}
