/**
 * Kept-alive connections to other nodes: one http(s).Agent per remote origin and per
 * way the node learned it, so a burst of deliveries to a peer rides a few warm sockets instead of
 * paying a TCP (and TLS) handshake per message.
 *
 * - Every new socket still comes from guardedConnect: looked up through the node's DnsResolver
 *   and, for a node found through DNS, at public addresses only. A 'peer' and a 'dns' target never
 *   share an agent, so a socket an owner-set peer opened to a private address is never handed to
 *   a request that may only reach public ones.
 * - At most `socketsPerOrigin` sockets per agent (the client's per-origin concurrency).
 * - A free socket is closed after `idleSocketMs`, below the peer listener's 5 s keep-alive, so the
 *   one a request picks is rarely one the other side is closing (the client retries that rare one).
 * - The table is bounded: agents left without sockets are dropped, and beyond `maxOrigins` the
 *   least recently used agents with no request in flight are destroyed, so a flood naming many
 *   hostile origins cannot grow it. A busy agent is never cut: at most the client's total
 *   concurrency of them can be over the bound, and only until they are done.
 */
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { DnsResolver } from '../dns/resolver.ts';
import { guardedConnect, type ConnectTarget } from './guarded-connect.ts';
import { unreachable } from './remote-error.ts';

export interface PoolLimits {
  /** Sockets per agent, in use and free. */
  socketsPerOrigin: number;
  /** How long a free socket is kept. */
  idleSocketMs: number;
  /** Agents kept beyond the ones with requests in flight. */
  maxOrigins: number;
}

export class ConnectionPools {
  readonly #resolver: DnsResolver;
  readonly #limits: PoolLimits;
  /** In order of use: the first entry is the least recently used. */
  readonly #agents = new Map<string, HttpAgent>();

  constructor(resolver: DnsResolver, limits: PoolLimits) {
    this.#resolver = resolver;
    this.#limits = limits;
  }

  /** Agents held now (for tests and diagnostics). */
  get size(): number {
    return this.#agents.size;
  }

  /** The agent for `target`, made when there is none (the table trimmed first). */
  agentFor(target: ConnectTarget): HttpAgent {
    const key = JSON.stringify([target.publicOnly, target.protocol, target.host, target.port]);
    let agent = this.#agents.get(key);
    if (agent === undefined) {
      this.#trim();
      agent = this.#agent(target);
    }
    this.#agents.delete(key);
    this.#agents.set(key, agent);
    return agent;
  }

  /**
   * Destroys every socket, free or in use, and forgets every agent. A request on one fails with
   * this error, rather than as a socket the other side closed (which would be sent again).
   */
  close(): void {
    const closed = unreachable();
    for (const agent of this.#agents.values()) {
      for (const sockets of [agent.sockets, agent.freeSockets]) {
        for (const list of Object.values(sockets)) for (const socket of list ?? []) socket.destroy(closed);
      }
    }
    this.#agents.clear();
  }

  #agent(target: ConnectTarget): HttpAgent {
    const { socketsPerOrigin, idleSocketMs } = this.#limits;
    const options = { keepAlive: true, maxSockets: socketsPerOrigin, timeout: idleSocketMs, scheduling: 'lifo' as const };
    const agent = target.protocol === 'https:' ? new HttpsAgent(options) : new HttpAgent(options);
    // Each agent serves one target, so every socket is opened for it (Node's options are not needed).
    agent.createConnection = (_options, callback) => {
      try {
        return guardedConnect(target, this.#resolver);
      } catch (error) {
        // A refused IP literal: the request fails with it instead of the agent throwing.
        callback?.(error as Error, undefined as never);
        return undefined;
      }
    };
    return agent;
  }

  /** Drops agents without sockets, then the least recently used idle ones while at the bound. */
  #trim(): void {
    for (const [key, agent] of this.#agents) {
      const inUse = count(agent.sockets);
      if (inUse + count(agent.freeSockets) === 0 || (inUse === 0 && this.#agents.size >= this.#limits.maxOrigins)) {
        agent.destroy();
        this.#agents.delete(key);
      }
    }
  }
}

function count(sockets: NodeJS.ReadOnlyDict<unknown[]>): number {
  let n = 0;
  for (const list of Object.values(sockets)) n += list?.length ?? 0;
  return n;
}
