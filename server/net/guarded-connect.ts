/**
 * Opens the socket for one outbound request, resolving the host through the node's DnsResolver
 * (never Node's own lookup, so tests can point names anywhere) and, when only public addresses
 * are allowed, refusing twice: addresses the lookup returns are filtered before any is tried, and
 * the address the socket actually connected to is checked again before a byte is written. The
 * second check is what holds against DNS rebinding and against paths that skip the lookup (an IP
 * literal host is never looked up by Node).
 */
import { connect as netConnect, isIP, type LookupFunction, type Socket } from 'node:net';
import { connect as tlsConnect, TLSSocket } from 'node:tls';
import type { DnsResolver } from '../dns/resolver.ts';
import { isPublicAddress } from './address-policy.ts';
import { refusedAddress } from './remote-error.ts';

export interface ConnectTarget {
  protocol: 'http:' | 'https:';
  /** Host name or IP literal, without brackets. */
  host: string;
  port: number;
  /** Only public addresses (a node found through DNS); false for owner-set peers, which may be anywhere. */
  publicOnly: boolean;
}

/** Where a request to `url` connects; `publicOnly` for a node found through DNS. */
export function connectTarget(url: URL, publicOnly: boolean): ConnectTarget {
  return {
    protocol: url.protocol === 'https:' ? 'https:' : 'http:',
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
    publicOnly,
  };
}

/** A `lookup` for net/tls that asks `resolver` and drops the addresses the policy refuses. */
function policyLookup(resolver: DnsResolver, publicOnly: boolean): LookupFunction {
  return (hostname, options, callback) => {
    resolver.lookup(hostname).then(
      (found) => {
        const wanted = options.family === 4 || options.family === 6 ? found.filter((a) => a.family === options.family) : found;
        const allowed = publicOnly ? wanted.filter((a) => isPublicAddress(a.address)) : wanted;
        if (allowed.length === 0) {
          callback(wanted.length > 0 ? refusedAddress() : Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
        } else if (options.all) {
          (callback as unknown as (error: null, addresses: { address: string; family: number }[]) => void)(null, allowed);
        } else {
          callback(null, allowed[0]!.address, allowed[0]!.family);
        }
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}

/**
 * The connecting socket (TLS for https, with SNI and certificate checks as usual). It emits
 * 'error' with a refused-address RemoteError when a public-only connection landed elsewhere;
 * a public-only IP literal that is not public throws at once, since Node would not look it up.
 */
export function guardedConnect(target: ConnectTarget, resolver: DnsResolver): Socket {
  if (target.publicOnly && isIP(target.host) !== 0 && !isPublicAddress(target.host)) throw refusedAddress();
  const lookup = policyLookup(resolver, target.publicOnly);
  const socket =
    target.protocol === 'https:'
      ? tlsConnect({
          host: target.host,
          port: target.port,
          lookup,
          ALPNProtocols: ['http/1.1'],
          ...(isIP(target.host) === 0 ? { servername: target.host } : {}),
        })
      : netConnect({ host: target.host, port: target.port, lookup });
  // Registered before the HTTP client gets the socket, so this runs before it writes the request
  // (for https, the request waits for the handshake anyway) and before any `whenConnected`.
  socket.once('connect', () => {
    if (target.publicOnly && !isPublicAddress(socket.remoteAddress ?? '')) socket.destroy(refusedAddress());
  });
  return socket;
}

/**
 * Runs `onConnected` once a socket from guardedConnect is up (for https, its handshake done), or
 * at once for one a pool hands out already connected. Call it when the HTTP client hands the
 * socket to a request: a new socket is then always still connecting (its lookup alone takes a
 * turn of the event loop), so `connecting` tells the two apart.
 */
export function whenConnected(socket: Socket, onConnected: () => void): void {
  if (!socket.connecting) return onConnected();
  socket.once(socket instanceof TLSSocket ? 'secureConnect' : 'connect', () => {
    if (!socket.destroyed) onConnected();
  });
}
