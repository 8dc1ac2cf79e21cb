/**
 * Control signals for agents: pause, resume or interrupt another identity of your project.
 */
import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { Signal } from '../../../../../contract/core/control.ts';
import { toolResult } from '../result.ts';
import type { ToolContext } from './context.ts';

export function registerControlTools(server: McpServer, { services, principal }: ToolContext): void {
  server.registerTool(
    'send_control',
    {
      title: 'Send a control signal',
      description: "Pause, resume or interrupt an identity of your project; it arrives once, on the target's event stream.",
      inputSchema: z.object({ alias: z.string().min(1).max(64), signal: Signal }),
    },
    ({ alias, signal }) => toolResult(() => services.control.send(principal.agentId, alias, signal)),
  );
}
