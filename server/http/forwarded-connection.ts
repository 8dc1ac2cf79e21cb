/**
 * A connection a tunnel forwards, handed to the peer listener's HTTP server in process (DESIGN §7).
 *
 * The tunnel used to pipe each forwarded channel into a loopback TCP connection, so every peer
 * arrived from 127.0.0.1 and shared one rate-limit bucket. Here the channel itself becomes the HTTP
 * server's connection, carrying the originator address the tunnel reported: nothing a local
 * process sends can claim that address (only code in this process makes these objects), there is
 * no port-to-originator table to race against accept, and a forwarded connection costs no file
 * descriptor on this side at all.
 *
 * It is the small socket-like surface node:http and Fastify read (`remoteAddress` is what
 * `request.ip` reports; `setTimeout` drives the keep-alive and idle timeouts; `destroySoon` ends a
 * `Connection: close` response) over a standard Duplex, so destroy, `destroyed` and 'close' behave
 * as they do for a socket, which the SSH library's channel does not quite do.
 */
import { isIPv6 } from 'node:net';
import { Duplex } from 'node:stream';

/** Where a forwarded connection comes from, as the tunnel reports it. */
export interface Originator {
  address: string;
  port: number;
}

export class ForwardedConnection extends Duplex {
  readonly remoteAddress: string;
  readonly remotePort: number;
  readonly remoteFamily: 'IPv4' | 'IPv6';
  readonly #channel: Duplex;
  #channelClosed = false;
  #idleMs = 0;
  #idleTimer: NodeJS.Timeout | null = null;

  constructor(channel: Duplex, origin: Originator) {
    // Half-open like a server socket: the HTTP server decides when to end its side.
    super({ allowHalfOpen: true });
    this.remoteAddress = origin.address;
    this.remotePort = origin.port;
    this.remoteFamily = isIPv6(origin.address) ? 'IPv6' : 'IPv4';
    this.#channel = channel;
    channel.on('data', (chunk: Buffer) => {
      this.#touch();
      if (!this.push(chunk)) channel.pause();
    });
    channel.on('end', () => this.push(null));
    channel.on('error', (error: Error) => this.destroy(error));
    // A closed channel carries nothing more either way.
    channel.on('close', () => {
      this.#channelClosed = true;
      this.destroy();
    });
  }

  override _read(): void {
    this.#channel.resume();
  }

  override _write(chunk: Buffer, encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.#touch();
    this.#channel.write(chunk, encoding, (error) => {
      this.#touch();
      callback(error);
    });
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.#channel.end();
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    if (this.#idleTimer) clearTimeout(this.#idleTimer);
    this.#idleTimer = null;
    if (!this.#channelClosed) this.#channel.destroy();
    callback(error);
  }

  /** As net.Socket: 'timeout' after `ms` without a byte either way; 0 turns it off. */
  setTimeout(ms: number, callback?: () => void): this {
    this.#idleMs = ms;
    if (this.#idleTimer) clearTimeout(this.#idleTimer);
    this.#idleTimer = null;
    if (ms > 0 && !this.destroyed) {
      this.#idleTimer = setTimeout(() => this.emit('timeout'), ms);
      this.#idleTimer.unref();
    }
    if (callback) {
      if (ms > 0) this.once('timeout', callback);
      else this.off('timeout', callback);
    }
    return this;
  }

  /** As net.Socket: end the writable side, then destroy once it has flushed. */
  destroySoon(): void {
    if (this.writable) this.end();
    if (this.writableFinished) this.destroy();
    else this.once('finish', () => this.destroy());
  }

  // The SSH connection underneath has Nagle off and its own keepalives.
  setNoDelay(): this {
    return this;
  }

  setKeepAlive(): this {
    return this;
  }

  #touch(): void {
    if (this.#idleTimer && this.#idleMs > 0) this.#idleTimer.refresh();
  }
}
