// @vitest-environment jsdom
/** Settings → Devices' store: the list in the panel's order, a link code and the device that joins with it, revoking, and the list following the node. */
import { beforeEach, describe, expect, it } from 'vitest';
import { Device, DeviceLinkCreated } from '../../../contract/node/devices.ts';
import { ApiError } from '../api/errors.ts';
import { useDevicesStore } from './devices.ts';
import { useLiveStore } from './live.ts';
import { connectFakeNode, deferred, type FakeNode } from './test-client.ts';

const MADE = '2026-03-01T10:00:00.000Z';
const EXPIRES = '2026-03-01T10:10:00.000Z';

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

const desk = device('desk', { this_device: true, linked_at: '2026-01-01T00:00:00.000Z' });
const phone = device('phone', { linked_at: '2026-02-10T00:00:00.000Z', last_seen_at: '2026-02-20T00:00:00.000Z' });
const old = device('old', { linked_at: '2026-01-05T00:00:00.000Z', revoked_at: '2026-01-20T00:00:00.000Z' });
const linkAnswer = DeviceLinkCreated.parse({
  code: 'svc_link_0123456789abcdef0123456789abcdef',
  url: 'http://node.test',
  expires_at: EXPIRES,
  command: 'svc-node device join http://node.test svc_link_0123456789abcdef0123456789abcdef --data NEW_DIR',
});

let node: FakeNode;

beforeEach(() => {
  node = connectFakeNode();
  node.owner.devices = async () => [old, phone, desk];
  useLiveStore().start();
});

describe('devices store', () => {
  it('lists this device first, then the live ones, then the revoked ones', async () => {
    const devices = useDevicesStore();
    expect(devices.loaded).toBe(false);
    await devices.load();
    expect(devices.loaded).toBe(true);
    expect(devices.devices.map((d) => d.device_id)).toEqual(['desk', 'phone', 'old']);
  });

  it('keeps the list with the node’s words when a read fails', async () => {
    const devices = useDevicesStore();
    await devices.load();
    node.owner.devices = async () => {
      throw new ApiError(503, 'The node is starting.');
    };
    await devices.load();
    expect(devices.error).toBe('The node is starting.');
    expect(devices.devices).toHaveLength(3);
  });

  it('shows a code with its ten minutes counted by this window’s clock, and the device that joins with it', async () => {
    const devices = useDevicesStore();
    await devices.load();
    node.owner.linkDevice = async () => linkAnswer;
    const before = Date.now();
    const shown = await devices.makeLink();
    expect(shown).toMatchObject({ ...linkAnswer, madeAt: MADE });
    expect(shown.deadline - before).toBeGreaterThanOrEqual(600_000);
    expect(shown.deadline - Date.now()).toBeLessThanOrEqual(600_000);
    // The phone was listed before the code: it did not join with it.
    expect(devices.joined).toBeNull();

    const laptop = device('laptop', { name: 'Laptop', linked_at: '2026-03-01T10:03:00.000Z' });
    node.owner.devices = async () => [old, phone, desk, laptop];
    node.feed.change({ kind: 'devices_changed', teamId: null });
    await expect.poll(() => devices.joined?.name).toBe('Laptop');
    expect(devices.devices.map((d) => d.device_id)).toEqual(['desk', 'laptop', 'phone', 'old']);

    devices.closeLink();
    expect(devices.link).toBeNull();
    expect(devices.joined).toBeNull();
  });

  it('drops the code once the device that joined with it is revoked: what was said of it no longer holds', async () => {
    const devices = useDevicesStore();
    await devices.load();
    node.owner.linkDevice = async () => linkAnswer;
    await devices.makeLink();
    const laptop = device('laptop', { name: 'Laptop', linked_at: '2026-03-01T10:03:00.000Z' });
    node.owner.devices = async () => [desk, laptop];
    await devices.load();
    expect(devices.joined?.name).toBe('Laptop');
    const revoked = { ...laptop, revoked_at: '2026-03-01T10:05:00.000Z' };
    node.owner.revokeDevice = async () => revoked;
    node.owner.devices = async () => [desk, revoked];
    await devices.revoke('laptop');
    await expect.poll(() => devices.link).toBeNull();
  });

  it('revokes a device: shown revoked at once, then read again from the node', async () => {
    const devices = useDevicesStore();
    await devices.load();
    const revoked = { ...phone, revoked_at: '2026-03-01T11:00:00.000Z' };
    const reread = deferred<Device[]>();
    node.owner.revokeDevice = async () => revoked;
    node.owner.devices = () => reread.promise;
    expect(await devices.revoke('phone')).toEqual({ ...revoked, rotated: 0 });
    expect(node.callsTo('owner', 'revokeDevice').map((call) => call.args)).toEqual([['phone']]);
    expect(devices.devices.map((d) => [d.device_id, d.revoked_at])).toEqual([
      ['desk', null],
      ['phone', '2026-03-01T11:00:00.000Z'],
      ['old', '2026-01-20T00:00:00.000Z'],
    ]);
    reread.resolve([old, revoked, desk]);
    await expect.poll(() => node.callsTo('owner', 'devices')).toHaveLength(2);
  });

  it('gives every identity whose keys the node holds new keys when asked to, and no other', async () => {
    const devices = useDevicesStore();
    await devices.load();
    node.owner.revokeDevice = async () => ({ ...phone, revoked_at: '2026-03-01T11:00:00.000Z' });
    const identity = (agent_id: string, fields: Record<string, unknown>) => ({
      agent_id,
      lifetime: 'persistent',
      custody: 'custodial',
      status: 'active',
      ...fields,
    });
    node.owner.identities = async () =>
      [
        identity('alice', {}),
        identity('eph', { lifetime: 'ephemeral' }),
        identity('self', { custody: 'self' }),
        identity('gone', { status: 'archived' }),
      ] as never;
    node.owner.rotateSigningKey = async () => ({ new_did: 'did:key:znew' });
    node.owner.rotateEncryptionKey = async () => ({}) as never;
    expect((await devices.revoke('phone', { rotateKeys: true })).rotated).toBe(1);
    expect(node.callsTo('owner', 'rotateSigningKey').map((call) => call.args)).toEqual([['alice']]);
    expect(node.callsTo('owner', 'rotateEncryptionKey').map((call) => call.args)).toEqual([['alice']]);
    // Without the box ticked: revoked, and no key touched.
    expect((await devices.revoke('phone')).rotated).toBe(0);
    expect(node.callsTo('owner', 'rotateSigningKey')).toHaveLength(1);
  });

  it('lets the node’s refusal through to whoever asked to revoke', async () => {
    const devices = useDevicesStore();
    await devices.load();
    node.owner.revokeDevice = async () => {
      throw new ApiError(409, 'this is the device you are using: revoke it from another of your devices');
    };
    await expect(devices.revoke('desk')).rejects.toThrow('this is the device you are using');
    expect(devices.devices.every((d) => d.revoked_at === null || d.device_id === 'old')).toBe(true);
  });

  it('reads the list again when devices change on the node, and after a reconnect once it was read; not for other nudges', async () => {
    const devices = useDevicesStore();
    node.feed.state('open');
    expect(node.callsTo('owner', 'devices')).toEqual([]);
    await devices.load();
    node.feed.change({ kind: 'teams_changed', teamId: null });
    expect(node.callsTo('owner', 'devices')).toHaveLength(1);
    node.owner.devices = async () => [desk];
    node.feed.change({ kind: 'devices_changed', teamId: null });
    await expect.poll(() => devices.devices).toHaveLength(1);
    node.feed.state('open');
    await expect.poll(() => node.callsTo('owner', 'devices')).toHaveLength(3);
  });

  it('keeps the newest list when an older read answers last', async () => {
    const devices = useDevicesStore();
    const slow = deferred<Device[]>();
    node.owner.devices = () => slow.promise;
    const opening = devices.load();
    node.owner.devices = async () => [desk, phone];
    node.feed.change({ kind: 'devices_changed', teamId: null });
    await expect.poll(() => devices.devices).toHaveLength(2);
    slow.resolve([desk]);
    await opening;
    expect(devices.devices).toHaveLength(2);
  });
});
