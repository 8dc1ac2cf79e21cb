/**
 * Control signals for agents: pause, resume or interrupt another identity of your project.
 */
import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { ControlSent, Signal } from '../../../../../contract/core/control.ts';
import { portable } from '../portable-schema.ts';
import { toolResult } from '../result.ts';
import { changes } from './annotations.ts';
import type { ToolContext } from './context.ts';

export function registerControlTools(server: McpServer, { services, principal }: ToolContext): void {
  server.registerTool(
    'send_control',
    {
      title: 'Send a control signal',
      description: "Pause, resume or interrupt an identity of your project; it arrives once, on the target's event stream.",
      inputSchema: z.object({ alias: z.string().min(1).max(64), signal: Signal }),
      outputSchema: portable(ControlSent),
      // An interrupt stops another agent's work; each call queues one more signal.
      annotations: changes({ destructive: true, idempotent: false }),
    },
    ({ alias, signal }) => toolResult(ControlSent, () => services.control.send(principal.agentId, alias, signal)),
  );
}
