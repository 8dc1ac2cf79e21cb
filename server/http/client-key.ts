/**
 * Whom the peer listener counts a connection or a request against (DESIGN §7), for its connection
 * caps and its rate limit alike: a tunneled connection's originator as the tunnel reported it,
 * otherwise the socket's own address.
 *
 * Tunneled clients are keyed apart from direct ones (`tunnel <address>`): behind a reverse proxy on
 * the SSH host every originator may be 127.0.0.1 there, which is not the same client as a process
 * on this machine. IPv6 clients count per /64, the block one subscriber usually holds, so walking
 * through one's own addresses buys nothing; an IPv4-mapped address counts as the IPv4 one.
 */
import { isIP } from 'node:net';
import { ForwardedConnection } from './forwarded-connection.ts';

export function clientKey(socket: { remoteAddress?: string | undefined }): string {
  return socket instanceof ForwardedConnection ? tunnelKey(socket.remoteAddress) : addressKey(socket.remoteAddress ?? '');
}

/** The key of a connection the tunnel forwards from `originator`. */
export const tunnelKey = (originator: string): string => `tunnel ${addressKey(originator)}`;

/** An address as it is counted: IPv4 as is, IPv6 as its /64, anything else as `unknown`. */
export function addressKey(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address)?.[1];
  if (mapped !== undefined && isIP(mapped) === 4) return mapped;
  const version = isIP(address);
  if (version === 4) return address;
  if (version === 6) return `${ipv6Groups(address).slice(0, 4).join(':')}::/64`;
  return 'unknown';
}

/** The eight groups of a valid IPv6 address, zone dropped, without leading zeros. */
function ipv6Groups(address: string): string[] {
  const [head = '', tail] = (address.split('%')[0] ?? '').toLowerCase().split('::');
  // An embedded IPv4 tail (`::ffff:1.2.3.4`) fills the last two groups; only the first four matter.
  const groups = (part: string): string[] => (part === '' ? [] : part.split(':').flatMap((g) => (g.includes('.') ? ['0', '0'] : [g])));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const zeros = new Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...zeros, ...right].map((g) => Number.parseInt(g, 16).toString(16));
}
