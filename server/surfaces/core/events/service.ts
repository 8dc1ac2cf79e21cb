/**
 * The identity event streams and the wake sources they read. Mail and control signals are built
 * in; chat plugs in as one more source (`chatWakeSource(chat)` in createCoreServices).
 */
import type { NodeContext } from '../../../context.ts';
import { conflict } from '../../../errors.ts';
import { StreamCap } from '../../../events/stream-cap.ts';
import type { SseStream } from '../../../http/sse.ts';
import { identityStatus } from '../identities/store/agents.ts';
import type { WakeSource } from './sources.ts';
import { runIdentityStream, type IdentityStreamPosition } from './stream.ts';

export class EventStreams {
  readonly #ctx: NodeContext;
  readonly #sources: WakeSource[];
  /** Open streams per identity, whichever key or certificate opened them (events/stream-cap.ts). */
  readonly #cap = new StreamCap();

  constructor(ctx: NodeContext, sources: WakeSource[]) {
    this.#ctx = ctx;
    this.#sources = [...sources];
  }

  get sources(): readonly WakeSource[] {
    return this.#sources;
  }

  /**
   * Drives `stream` for the identity until it closes; from `resume` when it is a reconnect. The
   * identity's oldest stream closes when this one is one more than the cap.
   * `credential` throws once what the stream was opened with no longer holds (a revoked team
   * certificate): the stream then ends. `upstreamNames`: the wake items under upstream's names
   * too (a stream opened with upstream's DIDKey auth).
   */
  attach(
    agent: { agent_id: string; project_id: string; team_id?: string },
    stream: SseStream,
    { resume = null, credential, upstreamNames = false }: { resume?: IdentityStreamPosition | null; credential?: () => void; upstreamNames?: boolean } = {},
  ): void {
    this.#cap.admit(agent.agent_id, stream);
    runIdentityStream({
      upstreamNames,
      bus: this.#ctx.bus,
      agent,
      sources: this.#sources,
      stream,
      resume,
      check: () => {
        const current = identityStatus(this.#ctx.db, agent.agent_id) ?? 'deleted';
        if (current !== 'active') throw conflict('SVC_ERR_IDENTITY_NOT_ACTIVE', `Identity is ${current}; its event stream has ended`);
        credential?.();
      },
    });
  }
}
