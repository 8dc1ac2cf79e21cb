/**
 * An ssh2 server standing in for the user's SSH host in tunnel tests (unit and API): publickey
 * auth for one key only, and `tcpip-forward` served by a loopback listener whose sockets go back
 * to the client through forwardOut, as OpenSSH's `-R` does.
 */
import { createHash } from 'node:crypto';
import net from 'node:net';
import ssh2 from 'ssh2';
import type { Connection, ParsedKey } from 'ssh2';
import { sshEd25519PublicBlob } from '../../server/tunnel/ssh-key.ts';

function parsed(key: Buffer | string): ParsedKey {
  const result = ssh2.utils.parseKey(key);
  if (result instanceof Error) throw result;
  return result;
}

/**
 * An Ed25519 host key from ssh2's keygen. ssh2 1.17's keygen strips leading zero bytes from the
 * Ed25519 public key, so about one key in 256 comes out malformed; those are drawn again.
 */
function generateHostKey(): { private: string; public: string } {
  for (;;) {
    const key = ssh2.utils.generateKeyPairSync('ed25519');
    if (!(ssh2.utils.parseKey(key.private) instanceof Error)) return key;
  }
}

/** The raw Ed25519 key in an authorized_keys line (the last 32 bytes of its ssh-ed25519 blob). */
export function rawKeyOf(authorizedKeysLine: string): Buffer {
  const blob = Buffer.from(authorizedKeysLine.split(' ')[1] ?? '', 'base64');
  return blob.subarray(blob.length - 32);
}

export interface TestSshServer {
  port: number;
  /** The host key fingerprint as OpenSSH prints it. */
  fingerprint: string;
  /** How many SSH connections were made to it so far. */
  connectionCount(): number;
  /** The loopback port of the most recent remote forward, if any is listening. */
  forwardedPort(): number | undefined;
  /** Ends every client connection from the server side. */
  dropClients(): void;
  close(): Promise<void>;
}

/**
 * An ssh2 server standing in for the user's SSH host: publickey auth for one key only, and
 * `tcpip-forward` served by a loopback listener whose sockets go back to the client via forwardOut,
 * each reported with its own source address and port as the originator, as OpenSSH reports them
 * (so a test connecting from 127.0.0.2 is a different peer from one connecting from 127.0.0.3).
 */
export async function startSshServer(allowedRawKey: Buffer): Promise<TestSshServer> {
  const hostKey = generateHostKey();
  const hostBlob = parsed(hostKey.public).getPublicSSH();
  const fingerprint = `SHA256:${createHash('sha256').update(hostBlob).digest('base64').replace(/=+$/, '')}`;
  const allowed = parsed(sshEd25519PublicBlob(allowedRawKey));
  const connections = new Set<Connection>();
  let connectionCount = 0;
  let forwardedPort: number | undefined;

  const server = new ssh2.Server({ hostKeys: [hostKey.private] }, (connection) => {
    connectionCount += 1;
    connections.add(connection);
    // Without it Nagle and delayed ACKs add ~40 ms per round trip (missing from @types/ssh2).
    (connection as Connection & { setNoDelay(noDelay: boolean): void }).setNoDelay(true);
    const forwardListeners = new Set<net.Server>();
    const forwardedSockets = new Set<net.Socket>();

    connection.on('authentication', (ctx) => {
      if (ctx.method !== 'publickey') return ctx.reject(['publickey']);
      const sameKey = ctx.key.algo === allowed.type && ctx.key.data.equals(allowed.getPublicSSH());
      if (!sameKey) return ctx.reject();
      if (ctx.signature && allowed.verify(ctx.blob ?? Buffer.alloc(0), ctx.signature, ctx.hashAlgo) !== true) {
        return ctx.reject();
      }
      ctx.accept();
    });

    connection.on('request', (accept, reject, name, info) => {
      if (name !== 'tcpip-forward') return reject?.();
      const listener = net.createServer((socket) => {
        forwardedSockets.add(socket);
        socket.on('close', () => forwardedSockets.delete(socket));
        const address = listener.address() as net.AddressInfo;
        connection.forwardOut(info.bindAddr, address.port, socket.remoteAddress ?? '127.0.0.1', socket.remotePort ?? 0, (error, channel) => {
          if (error) return socket.destroy();
          socket.pipe(channel).pipe(socket);
          socket.on('error', () => channel.destroy());
          channel.on('error', () => socket.destroy());
        });
      });
      forwardListeners.add(listener);
      listener.listen(info.bindPort, '127.0.0.1', () => {
        forwardedPort = (listener.address() as net.AddressInfo).port;
        accept?.(forwardedPort);
      });
    });

    connection.on('error', () => {});
    connection.on('close', () => {
      connections.delete(connection);
      for (const socket of forwardedSockets) socket.destroy();
      for (const listener of forwardListeners) listener.close();
      forwardedPort = undefined;
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    fingerprint,
    connectionCount: () => connectionCount,
    forwardedPort: () => forwardedPort,
    dropClients: () => {
      for (const connection of connections) connection.end();
    },
    close: async () => {
      for (const connection of connections) connection.end();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
