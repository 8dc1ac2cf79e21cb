/**
 * How a team's library says it changed: every service that writes a team's shelf, proposals or
 * bindings calls this once its transaction has committed, whoever asked (a route, the MCP, the
 * CLI, a test), so no write goes unheard. The owner's feed turns it into `library_changed` and the
 * UI refreshes live. A write that is refused commits nothing and announces nothing.
 */
import type { NodeContext } from '../../context.ts';
import { teamTopic } from '../../events/bus.ts';

export function libraryChanged(ctx: Pick<NodeContext, 'bus'>, teamId: string): void {
  ctx.bus.publish(teamTopic(teamId));
}
