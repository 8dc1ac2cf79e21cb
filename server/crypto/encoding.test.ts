import { describe, expect, it } from 'vitest';
import { bodySha256Hex, fromBase64Padded, fromBase64Unpadded, fromBase64Url, sha256Hex, toBase64Padded, toBase64Unpadded, toBase64Url } from './encoding.ts';

const bytes = Buffer.from([0xfb, 0xff, 0xbf, 0x00, 0x01]);

describe('encoding', () => {
  it('hashes the empty body to the well-known sha256', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('round-trips unpadded standard base64 and refuses padding, url-safe characters and stray bits', () => {
    const text = toBase64Unpadded(bytes);
    expect(text).toBe('+/+/AAE');
    expect(fromBase64Unpadded(text)).toEqual(bytes);
    expect(fromBase64Unpadded(`${text}=`)).toBeNull();
    expect(fromBase64Unpadded('-_-_AAE')).toBeNull();
    // 'AAF' decodes to the same bytes as 'AAE' in lenient decoders; only one spelling is accepted.
    expect(fromBase64Unpadded('+/+/AAF')).toBeNull();
  });

  it('round-trips base64url without padding and refuses "=" and standard characters', () => {
    const text = toBase64Url(bytes);
    expect(text).toBe('-_-_AAE');
    expect(fromBase64Url(text)).toEqual(bytes);
    expect(fromBase64Url(`${text}=`)).toBeNull();
    expect(fromBase64Url('+/+/AAE')).toBeNull();
  });

  it('round-trips padded standard base64', () => {
    const text = toBase64Padded(bytes);
    expect(text).toBe('+/+/AAE=');
    expect(fromBase64Padded(text)).toEqual(bytes);
    expect(fromBase64Padded('not base64!')).toBeNull();
  });
});

describe('bodySha256Hex', () => {
  it('is the sha256 of the bytes, remembered per buffer', () => {
    const body = Buffer.from('# A body\n');
    expect(bodySha256Hex(body)).toBe(sha256Hex(body));
    expect(bodySha256Hex(body)).toBe(bodySha256Hex(body));
    // Another buffer with the same bytes has the same digest; different bytes another.
    expect(bodySha256Hex(Buffer.from('# A body\n'))).toBe(sha256Hex('# A body\n'));
    expect(bodySha256Hex(Buffer.from('# Another\n'))).toBe(sha256Hex('# Another\n'));
    expect(bodySha256Hex(new Uint8Array(0))).toBe(sha256Hex(''));
  });
});
