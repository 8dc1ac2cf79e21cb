/**
 * A real DNS server on loopback (UDP) for tests: the node is started with `dnsServer` pointing
 * here, so every lookup it makes crosses a socket and the test can count them, or make a name
 * fail the ways real DNS fails. It answers TXT and A/AAAA from its tables (the same shape as
 * staticDnsResolver's, so a test edits `records` and `addresses` the same way), and per name it
 * can stay silent (never answer), answer SERVFAIL, or answer NXDOMAIN. The wire format is written
 * by hand (RFC 1035 §4): a header, one question, answers without name compression.
 */
import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { isIP } from 'node:net';

/** How the server treats a name instead of answering from its tables. */
export type DnsBehaviour = 'silent' | 'servfail' | 'nxdomain';

export interface DnsServer {
  /** `127.0.0.1:<port>`, what startNode's `dnsServer` (and `--dns-server`) takes. */
  address: string;
  /** TXT records by owner name (`_svcid.example.test`): one array of strings per record. */
  records: Record<string, string[][]>;
  /** A and AAAA records by host name, lower case. */
  addresses: Record<string, string[]>;
  /** Names (lower case) answered with a behaviour instead of the tables. */
  behaviour: Record<string, DnsBehaviour>;
  /** The TTL put on every answer (seconds); 0 unless a test sets it. */
  ttl: number;
  /** Queries received for `name` (any type), or for every name when absent. */
  queries(name?: string): number;
  /** Forgets the counts. */
  resetCounts(): void;
  close(): Promise<void>;
}

const TYPE = { A: 1, TXT: 16, AAAA: 28 } as const;
const CLASS_IN = 1;
const RCODE = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4 } as const;

interface Question {
  id: number;
  /** The recursion-desired bit, echoed back. */
  rd: boolean;
  name: string;
  type: number;
  qclass: number;
  /** The question section as received, echoed back verbatim. */
  raw: Buffer;
}

/** The one question of a query; null when the packet is not a query we can read. */
function readQuestion(packet: Buffer): Question | null {
  if (packet.length < 12) return null;
  const flags = packet.readUInt16BE(2);
  if (flags & 0x8000 || packet.readUInt16BE(4) !== 1) return null;
  const labels: string[] = [];
  let offset = 12;
  for (;;) {
    const length = packet[offset];
    if (length === undefined || length > 63) return null;
    offset += 1;
    if (length === 0) break;
    if (offset + length > packet.length) return null;
    labels.push(packet.subarray(offset, offset + length).toString('latin1'));
    offset += length;
  }
  if (offset + 4 > packet.length) return null;
  return {
    id: packet.readUInt16BE(0),
    rd: (flags & 0x0100) !== 0,
    name: labels.join('.').toLowerCase(),
    type: packet.readUInt16BE(offset),
    qclass: packet.readUInt16BE(offset + 2),
    raw: packet.subarray(12, offset + 4),
  };
}

function encodeName(name: string): Buffer {
  const parts =
    name === ''
      ? []
      : name.split('.').map((label) => {
          const bytes = Buffer.from(label, 'latin1');
          return Buffer.concat([Buffer.from([bytes.length]), bytes]);
        });
  return Buffer.concat([...parts, Buffer.from([0])]);
}

/** TXT rdata: each string as a length-prefixed character-string (255 bytes at most each). */
function txtRdata(strings: string[]): Buffer {
  return Buffer.concat(
    strings.map((text) => {
      const bytes = Buffer.from(text, 'utf8');
      if (bytes.length > 255) throw new RangeError('a TXT character-string holds at most 255 bytes');
      return Buffer.concat([Buffer.from([bytes.length]), bytes]);
    }),
  );
}

function addressRdata(address: string): Buffer {
  if (isIP(address) === 4) return Buffer.from(address.split('.').map(Number));
  // Expand `::` and write the eight 16-bit groups.
  const [head = '', tail] = address.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  const bytes = Buffer.alloc(16);
  groups.forEach((group, i) => bytes.writeUInt16BE(parseInt(group, 16), i * 2));
  return bytes;
}

function record(name: string, type: number, ttl: number, rdata: Buffer): Buffer {
  const fixed = Buffer.alloc(10);
  fixed.writeUInt16BE(type, 0);
  fixed.writeUInt16BE(CLASS_IN, 2);
  fixed.writeUInt32BE(ttl, 4);
  fixed.writeUInt16BE(rdata.length, 8);
  return Buffer.concat([encodeName(name), fixed, rdata]);
}

function response(question: Question, rcode: number, answers: Buffer[]): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(question.id, 0);
  // QR (response), AA (authoritative), RD echoed, RA (recursion available), then the RCODE.
  header.writeUInt16BE(0x8000 | 0x0400 | (question.rd ? 0x0100 : 0) | 0x0080 | rcode, 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(answers.length, 6);
  return Buffer.concat([header, question.raw, ...answers]);
}

export async function startDnsServer(): Promise<DnsServer> {
  const records: Record<string, string[][]> = {};
  const addresses: Record<string, string[]> = {};
  const behaviour: Record<string, DnsBehaviour> = {};
  const counts = new Map<string, number>();
  let total = 0;
  const server: DnsServer = {
    address: '',
    records,
    addresses,
    behaviour,
    ttl: 0,
    queries: (name) => (name === undefined ? total : (counts.get(name.toLowerCase()) ?? 0)),
    resetCounts() {
      counts.clear();
      total = 0;
    },
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };

  /** A name is known when any table has it, whatever the type asked. */
  const known = (name: string): boolean =>
    Object.keys(records).some((key) => key.toLowerCase() === name) || Object.keys(addresses).some((key) => key.toLowerCase() === name);

  const answer = (question: Question): Buffer | null => {
    if (question.qclass !== CLASS_IN) return response(question, RCODE.NOTIMP, []);
    const mode = behaviour[question.name];
    if (mode === 'silent') return null;
    if (mode === 'servfail') return response(question, RCODE.SERVFAIL, []);
    if (mode === 'nxdomain' || !known(question.name)) return response(question, RCODE.NXDOMAIN, []);
    if (question.type === TYPE.TXT) {
      const txt = Object.entries(records).find(([key]) => key.toLowerCase() === question.name)?.[1] ?? [];
      return response(
        question,
        RCODE.NOERROR,
        txt.map((strings) => record(question.name, TYPE.TXT, server.ttl, txtRdata(strings))),
      );
    }
    if (question.type === TYPE.A || question.type === TYPE.AAAA) {
      const family = question.type === TYPE.A ? 4 : 6;
      const listed = (Object.entries(addresses).find(([key]) => key.toLowerCase() === question.name)?.[1] ?? []).filter((ip) => isIP(ip) === family);
      return response(
        question,
        RCODE.NOERROR,
        listed.map((ip) => record(question.name, question.type, server.ttl, addressRdata(ip))),
      );
    }
    // A known name without records of the asked type: NOERROR with no answers (NODATA).
    return response(question, RCODE.NOERROR, []);
  };

  const socket: Socket = createSocket('udp4');
  socket.on('message', (packet: Buffer, peer: RemoteInfo) => {
    const question = readQuestion(packet);
    if (question === null) {
      if (packet.length >= 12) {
        const formerr = Buffer.from(packet.subarray(0, 12));
        formerr.writeUInt16BE(0x8000 | RCODE.FORMERR, 2);
        socket.send(formerr, peer.port, peer.address);
      }
      return;
    }
    total += 1;
    counts.set(question.name, (counts.get(question.name) ?? 0) + 1);
    const reply = answer(question);
    if (reply !== null) socket.send(reply, peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
  server.address = `127.0.0.1:${socket.address().port}`;
  return server;
}
