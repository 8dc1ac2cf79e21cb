/**
 * The core surface's services, wired once per node and shared by the HTTP routes, the owner API
 * and (later) MCP, so each rule has exactly one implementation.
 */
import type { OwnerAccess } from '../../auth/owner.ts';
import type { NodeContext } from '../../context.ts';
import { DidRegistry } from './did/registry.ts';
import { IdentityBackups } from './identities/backup.ts';
import { IdentityLifecycle } from './identities/lifecycle.ts';
import { IdentityService } from './identities/service.ts';
import { NamespaceService } from './namespaces/service.ts';
import { ProjectService } from './projects/service.ts';

export interface CoreServices {
  ctx: NodeContext;
  owner: OwnerAccess;
  did: DidRegistry;
  namespaces: NamespaceService;
  projects: ProjectService;
  identities: IdentityService;
  lifecycle: IdentityLifecycle;
  backups: IdentityBackups;
}

export function createCoreServices(ctx: NodeContext, owner: OwnerAccess): CoreServices {
  const did = new DidRegistry(ctx);
  const namespaces = new NamespaceService(ctx, did);
  const projects = new ProjectService(ctx, namespaces);
  const deps = { did, namespaces, projects };
  const identities = new IdentityService(ctx, deps);
  const lifecycle = new IdentityLifecycle(ctx, deps, identities);
  const backups = new IdentityBackups(ctx, deps, identities);
  return { ctx, owner, did, namespaces, projects, identities, lifecycle, backups };
}
