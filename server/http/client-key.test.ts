import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { addressKey, clientKey } from './client-key.ts';
import { ForwardedConnection } from './forwarded-connection.ts';

describe('addressKey', () => {
  it('counts IPv4 as is and an IPv4-mapped IPv6 address as its IPv4 one', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::FFFF:127.0.0.1')).toBe('127.0.0.1');
  });

  it('counts IPv6 per /64, however the address is spelled', () => {
    const key = '2001:db8:0:1::/64';
    expect(addressKey('2001:db8:0:1::1')).toBe(key);
    expect(addressKey('2001:0db8:0000:0001:ffff:ffff:ffff:ffff')).toBe(key);
    expect(addressKey('2001:db8::1:0:0:0:5')).toBe(key);
    expect(addressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(addressKey('2001:db8:0:2::1')).not.toBe(key);
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
  });

  it('counts anything that is not an address as one unknown client', () => {
    for (const text of ['', 'localhost', '1.2.3', '::ffff:999.1.1.1', '2001:db8:::1']) expect(addressKey(text)).toBe('unknown');
  });
});

describe('clientKey', () => {
  it('keys a socket by its address and a tunneled connection by its originator, apart from direct clients', () => {
    expect(clientKey({ remoteAddress: '198.51.100.4' })).toBe('198.51.100.4');
    expect(clientKey({ remoteAddress: undefined })).toBe('unknown');
    const forwarded = new ForwardedConnection(new PassThrough(), { address: '198.51.100.4', port: 40_000 });
    expect(forwarded.remoteAddress).toBe('198.51.100.4');
    expect(forwarded.remotePort).toBe(40_000);
    expect(clientKey(forwarded)).toBe('tunnel 198.51.100.4');
    forwarded.destroy();
  });
});
