/** Settings → Devices' pure rules: the countdown of a link code, which devices may be revoked, and the list's order. */
import { describe, expect, it } from 'vitest';
import { Device } from '../../../contract/node/devices.ts';
import { canRevoke, countdown, countdownWords, sortDevices } from './devices.ts';

function device(id: string, fields: Partial<Device> = {}): Device {
  return Device.parse({
    device_id: id,
    name: id,
    sign_key: `did:key:z${id}`,
    url: null,
    this_device: false,
    linked_at: '2026-02-01T00:00:00.000Z',
    last_seen_at: null,
    revoked_at: null,
    ...fields,
  });
}

describe('countdown', () => {
  it('shows minutes and seconds, rounded up, never below zero', () => {
    expect(countdown(600_000)).toBe('10:00');
    expect(countdown(545_001)).toBe('9:06');
    expect(countdown(5_000)).toBe('0:05');
    expect(countdown(1)).toBe('0:01');
    expect(countdown(0)).toBe('0:00');
    expect(countdown(-3_000)).toBe('0:00');
  });

  it('says it in words for a screen reader', () => {
    expect(countdownWords(600_000)).toBe('about 10 minutes left');
    expect(countdownWords(60_001)).toBe('about 2 minutes left');
    expect(countdownWords(60_000)).toBe('about 1 minute left');
    expect(countdownWords(59_000)).toBe('less than a minute left');
    expect(countdownWords(0)).toBe('expired');
  });
});

describe('devices', () => {
  it('offers to revoke only another device not revoked yet', () => {
    expect(canRevoke(device('a'))).toBe(true);
    expect(canRevoke(device('a', { this_device: true }))).toBe(false);
    expect(canRevoke(device('a', { revoked_at: '2026-02-02T00:00:00.000Z' }))).toBe(false);
  });

  it('orders this device first, the live ones newest first, then the revoked ones most recent first', () => {
    const list = [
      device('revoked-early', { revoked_at: '2026-02-02T00:00:00.000Z' }),
      device('older', { linked_at: '2026-01-10T00:00:00.000Z' }),
      device('revoked-late', { revoked_at: '2026-02-09T00:00:00.000Z' }),
      device('newer', { linked_at: '2026-01-20T00:00:00.000Z' }),
      device('this', { this_device: true, linked_at: '2025-12-01T00:00:00.000Z' }),
    ];
    expect(sortDevices(list).map((d) => d.device_id)).toEqual(['this', 'newer', 'older', 'revoked-late', 'revoked-early']);
    expect(list[0]!.device_id).toBe('revoked-early');
  });
});
