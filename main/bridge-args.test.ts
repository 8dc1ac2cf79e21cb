import { describe, expect, it } from 'vitest';
import { BRIDGE_ARG_PREFIX, decodeBridgeArg, encodeBridgeArg } from './bridge-args.ts';
import type { BridgeArgs } from './bridge-args.ts';

const ARGS: BridgeArgs = {
  ownerToken: 'tok_0123456789abcdef',
  coreUrl: 'http://127.0.0.1:41234',
  libraryUrl: 'http://127.0.0.1:41234',
  docsUrl: 'http://127.0.0.1:41235',
};

describe('bridge arguments', () => {
  it('round-trips through an argv list', () => {
    const arg = encodeBridgeArg(ARGS);
    expect(arg.startsWith(BRIDGE_ARG_PREFIX)).toBe(true);
    expect(decodeBridgeArg(['/usr/lib/electron', '--type=renderer', arg, '--other'])).toEqual(ARGS);
  });

  it('is a single shell-safe token (base64url, no padding)', () => {
    const arg = encodeBridgeArg({ ...ARGS, ownerToken: '???>>>~~~ünïcödé' });
    expect(arg.slice(BRIDGE_ARG_PREFIX.length)).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeBridgeArg([arg])?.ownerToken).toBe('???>>>~~~ünïcödé');
  });

  it('carries only the known fields', () => {
    const arg = encodeBridgeArg({ ...ARGS, extra: 'x' } as BridgeArgs);
    expect(Object.keys(decodeBridgeArg([arg]) ?? {})).toEqual(['ownerToken', 'coreUrl', 'libraryUrl', 'docsUrl']);
  });

  it('returns null when the argument is missing', () => {
    expect(decodeBridgeArg(['--type=renderer'])).toBeNull();
  });

  it('returns null for garbage, non-objects and missing or empty fields', () => {
    const encode = (value: unknown): string => BRIDGE_ARG_PREFIX + Buffer.from(JSON.stringify(value)).toString('base64url');
    expect(decodeBridgeArg([`${BRIDGE_ARG_PREFIX}%%%`])).toBeNull();
    expect(decodeBridgeArg([`${BRIDGE_ARG_PREFIX}${Buffer.from('not json').toString('base64url')}`])).toBeNull();
    expect(decodeBridgeArg([encode(null)])).toBeNull();
    expect(decodeBridgeArg([encode('string')])).toBeNull();
    expect(decodeBridgeArg([encode({ ...ARGS, ownerToken: '' })])).toBeNull();
    expect(decodeBridgeArg([encode({ ...ARGS, coreUrl: 42 })])).toBeNull();
    const { docsUrl: _omitted, ...partial } = ARGS;
    expect(decodeBridgeArg([encode(partial)])).toBeNull();
  });
});
