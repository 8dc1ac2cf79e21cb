/**
 * Control signals (`POST /v1/agents/{alias}/control`, spec §4.5, §6): pause, resume or interrupt
 * an identity of the sender's project, delivered at most once over the target's event stream
 * (its frames: contract/core/events.ts).
 */
import { z } from 'zod';
import { alias } from './identities.ts';

export const SIGNALS = ['pause', 'resume', 'interrupt'] as const;
export const Signal = z.enum(SIGNALS);
export type Signal = z.output<typeof Signal>;

export const ControlBody = z.strictObject({ signal: Signal });
export const ControlParams = z.object({ alias });

/** The queued signal. */
export const ControlSent = z.object({
  signal_id: z.string(),
  signal: Signal,
  target_alias: z.string(),
  created_at: z.string(),
});
export type ControlSent = z.output<typeof ControlSent>;
