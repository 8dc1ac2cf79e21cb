/**
 * Which IP addresses count as public (DESIGN §7): a node found through DNS may only be reached at
 * one, so a hostile `_svcid` record cannot point this node at loopback, the LAN, the cloud metadata
 * service or anything else behind it. Pure: the outbound client asks this about every address a
 * lookup returns and about the address it actually connected to.
 *
 * The ranges are IANA's special-purpose registries (RFC 6890 and its updates). IPv6 is an allow
 * list (only global unicast, 2000::/3, minus the special blocks inside it), so a new or odd range
 * is refused rather than trusted; IPv6 forms that embed an IPv4 address (mapped, NAT64) are judged
 * by that IPv4 address.
 */
import { isIPv4, isIPv6 } from 'node:net';

type Range = readonly [prefix: number[], bits: number];

/** Not public: "this network", private, CGNAT, loopback, link-local, IETF, documentation, 6to4 relay, benchmarking, multicast, reserved, broadcast. */
const V4_BLOCKED: readonly Range[] = [
  [[0, 0, 0, 0], 8],
  [[10, 0, 0, 0], 8],
  [[100, 64, 0, 0], 10],
  [[127, 0, 0, 0], 8],
  [[169, 254, 0, 0], 16],
  [[172, 16, 0, 0], 12],
  [[192, 0, 0, 0], 24],
  [[192, 0, 2, 0], 24],
  [[192, 88, 99, 0], 24],
  [[192, 168, 0, 0], 16],
  [[198, 18, 0, 0], 15],
  [[198, 51, 100, 0], 24],
  [[203, 0, 113, 0], 24],
  [[224, 0, 0, 0], 4],
  [[240, 0, 0, 0], 4],
];

/** Special blocks inside 2000::/3: IETF protocol assignments (Teredo among them), documentation, 6to4, SRv6 SIDs. */
const V6_BLOCKED: readonly Range[] = [
  [[0x20, 0x01, 0x00, 0x00], 23],
  [[0x20, 0x01, 0x0d, 0xb8], 32],
  [[0x20, 0x02], 16],
  [[0x3f, 0xff], 20],
  [[0x5f, 0x00], 16],
];
const V6_GLOBAL: Range = [[0x20], 3];
const V6_MAPPED: Range = [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff], 96];
const V6_NAT64: Range = [[0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0], 96];

function inRange(bytes: Uint8Array, [prefix, bits]: Range): boolean {
  for (let bit = 0; bit < bits; bit += 8) {
    const mask = bits - bit >= 8 ? 0xff : (0xff << (8 - (bits - bit))) & 0xff;
    if (((bytes[bit / 8] ?? 0) & mask) !== ((prefix[bit / 8] ?? 0) & mask)) return false;
  }
  return true;
}

function v4Bytes(text: string): Uint8Array {
  return Uint8Array.from(text.split('.').map(Number));
}

/** The 16 bytes of a valid IPv6 address (any zone id dropped; a dotted IPv4 tail allowed). */
function v6Bytes(text: string): Uint8Array {
  const plain = text.replace(/%.*$/, '');
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(plain);
  let hex = plain;
  if (dotted) {
    const [a, b, c, d] = v4Bytes(dotted[1]!);
    hex = `${plain.slice(0, dotted.index)}${((a! << 8) | b!).toString(16)}:${((c! << 8) | d!).toString(16)}`;
  }
  const [head = '', tail] = hex.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  const bytes = new Uint8Array(16);
  groups.forEach((group, i) => {
    const value = parseInt(group, 16);
    bytes[i * 2] = value >> 8;
    bytes[i * 2 + 1] = value & 0xff;
  });
  return bytes;
}

function isPublicV4(bytes: Uint8Array): boolean {
  return !V4_BLOCKED.some((range) => inRange(bytes, range));
}

/** True only for a syntactically valid IP address that is reachable on the public internet. */
export function isPublicAddress(address: string): boolean {
  if (isIPv4(address)) return isPublicV4(v4Bytes(address));
  if (!isIPv6(address)) return false;
  const bytes = v6Bytes(address);
  if (inRange(bytes, V6_MAPPED) || inRange(bytes, V6_NAT64)) return isPublicV4(bytes.subarray(12));
  return inRange(bytes, V6_GLOBAL) && !V6_BLOCKED.some((range) => inRange(bytes, range));
}
