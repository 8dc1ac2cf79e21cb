/**
 * The system resolver against real name servers on loopback (UDP): one that never answers, one
 * that answers SERVFAIL. A lookup that cannot be answered fails within its budget, and never as
 * "no record", which namespace registration would otherwise read as "nothing proves otherwise".
 */
import { createSocket, type Socket } from 'node:dgram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSystemDnsResolver } from './resolver.ts';

let silent: Socket;
let failing: Socket;
const address = (socket: Socket): string => `127.0.0.1:${socket.address().port}`;

function bind(onQuery: (socket: Socket, query: Buffer, port: number) => void): Promise<Socket> {
  const socket = createSocket('udp4');
  socket.on('message', (query, peer) => onQuery(socket, query, peer.port));
  return new Promise((resolve) => socket.bind(0, '127.0.0.1', () => resolve(socket)));
}

beforeAll(async () => {
  silent = await bind(() => undefined);
  // The query echoed back as a response (QR set) with RCODE 2, SERVFAIL.
  failing = await bind((socket, query, port) => {
    const answer = Buffer.from(query);
    answer[2] = (answer[2]! | 0x80) & 0xf9;
    answer[3] = 0x02;
    socket.send(answer, port, '127.0.0.1');
  });
});
afterAll(() => {
  silent.close();
  failing.close();
});

describe('createSystemDnsResolver', () => {
  it('gives up on a name server that never answers within its budget, as a timeout', async () => {
    const resolver = createSystemDnsResolver({ servers: [address(silent)], timeoutMs: 600 });
    const started = performance.now();
    const error = (await resolver.resolveTxt('_svcid.example.com').catch((caught: unknown) => caught)) as NodeJS.ErrnoException;
    expect(error.code).toBe('ETIMEOUT');
    expect(performance.now() - started).toBeLessThan(3_000);
  });

  it('reports SERVFAIL as a failure, not as an empty answer', async () => {
    const resolver = createSystemDnsResolver({ servers: [address(failing)], timeoutMs: 2_000 });
    const error = (await resolver.resolveTxt('_svcid.example.com').catch((caught: unknown) => caught)) as NodeJS.ErrnoException;
    expect(error.code).toBe('ESERVFAIL');
  });

  it('lets concurrent lookups time out on their own', async () => {
    const resolver = createSystemDnsResolver({ servers: [address(silent)], timeoutMs: 400 });
    const codes = await Promise.all(['a', 'b', 'c'].map((label) => resolver.resolveTxt(`_svcid.${label}.example`).catch((caught: NodeJS.ErrnoException) => caught.code)));
    expect(codes).toEqual(['ETIMEOUT', 'ETIMEOUT', 'ETIMEOUT']);
  });
});
