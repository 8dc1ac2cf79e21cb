import type { IdentityPrincipal } from '../../../../auth/bearer.ts';
import type { CoreServices } from '../../services.ts';

/** What every tool sees: the node's services and the identity whose key called. */
export interface ToolContext {
  services: CoreServices;
  principal: IdentityPrincipal;
}
