/**
 * What the owner's UI hears on its feed (`GET /v1/node/events/stream`) when the device list
 * changes: a device that joins with a link code, and a device revoked, each nudge
 * `devices_changed`, so Settings → Devices shows it without a reload. Making a code, reading the
 * list and a refusal change nothing on the list and send nothing.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { signingTimestamp, systemClock } from '../../server/clock.ts';
import { toBase64Url } from '../../server/crypto/encoding.ts';
import { DeviceKeys, newDeviceSecret } from '../../server/custody/device-key.ts';
import { codeIdOf, joinBytes, linkKeyOf, mac } from '../../server/devices/join-proof.ts';
import { expectOk, expectRefusal } from '../support/expect.ts';
import { requestJson, startTestNode, type TestNode } from '../support/node.ts';
import { connectSse, deadlineIn, type SseClient } from '../support/sse.ts';

let t: TestNode;

beforeAll(async () => {
  t = await startTestNode();
  return () => t.stop();
});

/** The owner feed, past its `connected` frame. */
async function ownerFeed(): Promise<SseClient> {
  const response = await connectSse(`${t.url}/v1/node/events/stream?deadline=${encodeURIComponent(deadlineIn(15))}`, { token: t.node.ownerToken });
  const stream = response.stream!;
  expect((await stream.next()).event).toBe('connected');
  return stream;
}

/** The first request of `svc-node device join`: a new device key proving the code and signing the join. */
function joinBody(code: string, name: string) {
  const device = new DeviceKeys(newDeviceSecret());
  const linkKey = linkKeyOf(code);
  const fields = {
    code_id: codeIdOf(linkKey),
    name,
    sign_key: device.signKey,
    box_key: toBase64Url(device.boxKey),
    url: null,
    timestamp: signingTimestamp(systemClock),
  };
  const bytes = joinBytes(fields);
  return { ...fields, proof: mac(linkKey, bytes), signature: toBase64Url(device.sign(bytes)) };
}

describe('devices on the owner feed', () => {
  it('nudges devices_changed when a device joins and when one is revoked; not for a code, a read or a refusal', async () => {
    const stream = await ownerFeed();
    try {
      const { code } = expectOk(await t.owner('POST', '/v1/node/devices/link'), 201);
      const { devices } = expectOk(await t.owner('GET', '/v1/node/devices'));
      const self = (devices as { device_id: string; this_device: boolean }[]).find((device) => device.this_device)!;
      expectRefusal(await t.owner('DELETE', `/v1/node/devices/${self.device_id}`), 409);
      expect(await stream.maybeNext(200)).toBeNull();

      const joined = expectOk(await requestJson(t.url, 'POST', '/v1/devices/join', { body: joinBody(code as string, 'Laptop') }));
      expect(await stream.next()).toMatchObject({ event: 'devices_changed', data: {} });
      expect(await stream.maybeNext(200)).toBeNull();

      expectOk(await t.owner('DELETE', `/v1/node/devices/${joined.device_id}`));
      expect(await stream.next()).toMatchObject({ event: 'devices_changed', data: {} });
      // Revoking it again changes nothing.
      expectOk(await t.owner('DELETE', `/v1/node/devices/${joined.device_id}`));
      expect(await stream.maybeNext(200)).toBeNull();
    } finally {
      stream.close();
    }
  });
});
