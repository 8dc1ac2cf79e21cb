/**
 * The wire between the owner's devices (`/v1/devices/...`), on the loopback and peer listeners
 * alike, since a new device joins from another machine: the join itself (`didkey`: the route
 * checks the code's proof and the new device's signature, join-proof.ts), then, signed by the
 * device's own key (`device`: device-auth.ts), the snapshot's manifest and chunks it fetches and
 * its word that it has them. Schemas: contract/node/devices.ts.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  DeviceJoinAnswer,
  DeviceJoinBody,
  DeviceJoinedAnswer,
  SnapshotChunkParams,
  SnapshotManifestParams,
  SyncPullAnswer,
  SyncPullBody,
  SyncPushAnswer,
  SyncPushBody,
} from '../../contract/node/devices.ts';
import { declareDeviceAuth } from '../http/route-auth.ts';
import { deviceAuthenticator } from './device-auth.ts';
import type { DeviceService } from './service.ts';
import type { DeviceSync } from './sync/service.ts';
import { SyncRefusedError } from './sync/sync-wire.ts';
import { BundleUnreadableError } from './keys-bundle.ts';
import { invalid } from '../errors.ts';

const tags = ['devices'];

export interface DeviceRouteOptions {
  devices: DeviceService;
  sync: DeviceSync;
  now: () => Date;
}

export async function deviceRoutes(app: FastifyInstance, { devices, sync, now }: DeviceRouteOptions): Promise<void> {
  declareDeviceAuth(app, deviceAuthenticator(devices, now));
  const api = app.withTypeProvider<ZodTypeProvider>();
  // The auth hook admitted the device (listed, not revoked, marked seen): its row, read once more.
  const deviceOf = (deviceId: string | null) => devices.other(deviceId ?? '');

  api.post(
    '/v1/devices/join',
    {
      config: { auth: 'didkey' },
      schema: {
        tags,
        summary: "A new device joins with a link code's proof and its own keys; it gets the keys sealed to it and a snapshot to fetch",
        body: DeviceJoinBody,
        response: { 200: DeviceJoinAnswer },
      },
    },
    async (request) => devices.join(request.body),
  );

  api.get(
    '/v1/devices/snapshot/manifests/:backup_id',
    {
      config: { auth: 'device' },
      schema: { tags, summary: 'The sealed manifest of the snapshot kept for the joining device (bytes, not JSON)', params: SnapshotManifestParams },
    },
    async (request, reply) =>
      reply
        .header('content-type', 'application/octet-stream')
        .send(await devices.snapshotPart(deviceOf(request.deviceId), { kind: 'manifest', backupId: request.params.backup_id })),
  );

  api.get(
    '/v1/devices/snapshot/chunks/:name',
    {
      config: { auth: 'device' },
      schema: { tags, summary: 'A sealed chunk of the snapshot kept for the joining device (bytes, not JSON)', params: SnapshotChunkParams },
    },
    async (request, reply) =>
      reply
        .header('content-type', 'application/octet-stream')
        .send(await devices.snapshotPart(deviceOf(request.deviceId), { kind: 'chunk', name: request.params.name })),
  );

  api.post(
    '/v1/devices/joined',
    {
      config: { auth: 'device' },
      schema: { tags, summary: 'The joining device has its snapshot: the copy kept for it is removed', response: { 200: DeviceJoinedAnswer } },
    },
    async (request) => {
      const device = deviceOf(request.deviceId);
      await devices.joined(device);
      return { device_id: device.device_id, joined: true as const };
    },
  );

  api.post(
    '/v1/devices/sync/pull',
    {
      config: { auth: 'device' },
      schema: {
        tags,
        summary: 'The changes the asking device lacks (sealed), waiting up to wait_ms for one; and the keys, sealed to it, when its keys differ',
        body: SyncPullBody,
        response: { 200: SyncPullAnswer },
      },
    },
    async (request) => sync.pull(deviceOf(request.deviceId), request.body),
  );

  api.post(
    '/v1/devices/sync/push',
    {
      config: { auth: 'device' },
      schema: {
        tags,
        summary: 'Changes this device lacks, sealed by the sending device; applied when they are the later ones',
        body: SyncPushBody,
        response: { 200: SyncPushAnswer },
      },
    },
    async (request) => {
      try {
        return sync.push(deviceOf(request.deviceId), request.body);
      } catch (error) {
        if (error instanceof SyncRefusedError || error instanceof BundleUnreadableError) {
          throw invalid('SVC_ERR_DEVICE_SYNC_UNREADABLE', error.message);
        }
        throw error;
      }
    },
  );
}
