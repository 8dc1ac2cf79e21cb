/**
 * Tool annotations (MCP `ToolAnnotations`): what a host may assume about a tool before calling
 * it, so it can run reads without asking and confirm what destroys. `openWorldHint` marks the
 * tools that may reach other nodes (mail and chat to a foreign address); everything else stays on
 * this node.
 */
import type { ToolAnnotations } from '@modelcontextprotocol/server';

/** Reads: no change anywhere; calling again is harmless. */
export const READS: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/** A change to this node's state: additive unless `destructive`, repeatable unless not `idempotent`. */
export function changes({
  destructive = false,
  idempotent,
  openWorld = false,
}: {
  destructive?: boolean;
  idempotent: boolean;
  openWorld?: boolean;
}): ToolAnnotations {
  return { readOnlyHint: false, destructiveHint: destructive, idempotentHint: idempotent, openWorldHint: openWorld };
}
