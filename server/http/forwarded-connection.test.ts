import { once } from 'node:events';
import { duplexPair } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { ForwardedConnection } from './forwarded-connection.ts';

/** A connection over one end of an in-memory pair; `remote` is the tunnel's far side. */
function pair() {
  const [channel, remote] = duplexPair();
  const connection = new ForwardedConnection(channel, { address: '203.0.113.9', port: 50_000 });
  return { channel, remote, connection };
}

describe('ForwardedConnection', () => {
  it('carries bytes both ways and reports the originator as its remote address', async () => {
    const { remote, connection } = pair();
    expect([connection.remoteAddress, connection.remotePort, connection.remoteFamily]).toEqual(['203.0.113.9', 50_000, 'IPv4']);
    remote.write('request');
    expect(String((await once(connection, 'data'))[0])).toBe('request');
    connection.write('response');
    expect(String((await once(remote, 'data'))[0])).toBe('response');
    connection.destroy();
  });

  it("emits 'timeout' after the idle time, later when bytes flow, never once turned off", async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const { remote, connection } = pair();
      let timeouts = 0;
      connection.on('timeout', () => timeouts++);
      connection.on('data', () => {});
      connection.setTimeout(1_000);
      for (let i = 0; i < 5; i++) {
        await vi.advanceTimersByTimeAsync(900);
        remote.write('x');
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(timeouts).toBe(0);
      await vi.advanceTimersByTimeAsync(1_000);
      expect(timeouts).toBe(1);
      connection.setTimeout(1_000);
      connection.setTimeout(0);
      await vi.advanceTimersByTimeAsync(5_000);
      expect(timeouts).toBe(1);
      connection.destroy();
    } finally {
      vi.useRealTimers();
    }
  });

  it('closes the channel when destroyed, and is destroyed when the channel closes', async () => {
    const first = pair();
    first.connection.destroy();
    await once(first.channel, 'close');

    const second = pair();
    second.channel.destroy();
    await once(second.connection, 'close');
    expect(second.connection.destroyed).toBe(true);
  });

  it('destroySoon ends its side, then is destroyed once that is flushed', async () => {
    const { remote, connection } = pair();
    const received: string[] = [];
    remote.on('data', (chunk: Buffer) => received.push(String(chunk)));
    connection.write('last words');
    connection.destroySoon();
    await once(connection, 'close');
    expect(received).toEqual(['last words']);
  });
});
