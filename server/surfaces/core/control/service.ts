/**
 * Control signals (spec §4.5, §6): pause, resume, interrupt, queued for an identity of the
 * sender's project and delivered at most once over the target's event stream.
 */
import { randomUUID } from 'node:crypto';
import type { ControlSent, Signal } from '../../../../contract/core/control.ts';
import type { NodeContext } from '../../../context.ts';
import { identityTopic } from '../../../events/bus.ts';
import type { IdentityService } from '../identities/service.ts';
import type { Recipients } from '../messaging/recipients.ts';
import { consumeControlSignal, insertControlSignal, pendingControlSignals, type ControlSignalRow } from './store.ts';

export class ControlService {
  readonly #ctx: NodeContext;
  readonly #identities: IdentityService;
  readonly #recipients: Recipients;

  constructor(ctx: NodeContext, identities: IdentityService, recipients: Recipients) {
    this.#ctx = ctx;
    this.#identities = identities;
    this.#recipients = recipients;
  }

  /** Queues `signal` for the identity called `alias` in the sender's project. */
  send(agentId: string, alias: string, signal: Signal): ControlSent {
    const { db, clock, bus } = this.#ctx;
    const target = this.#recipients.resolve(this.#identities.row(agentId), { alias }).agent;
    const signalId = randomUUID();
    const createdAt = clock.now().toISOString();
    insertControlSignal(db, { signal_id: signalId, target_agent_id: target.agent_id, from_agent_id: agentId, signal, created_at: createdAt });
    bus.publish(identityTopic(target.agent_id));
    return { signal_id: signalId, signal, target_alias: target.alias, created_at: createdAt };
  }

  /** Signals not yet delivered to any stream, oldest first. */
  pending(agentId: string): ControlSignalRow[] {
    return pendingControlSignals(this.#ctx.db, agentId);
  }

  /**
   * Takes the signal for one stream: true for exactly one caller, false when another stream
   * already has it. Called right before the frame is written.
   */
  claim(id: number): boolean {
    return consumeControlSignal(this.#ctx.db, id, this.#ctx.clock.now().toISOString());
  }
}
