/**
 * The owner's devices (`/v1/node/devices`): the list, a one-time code a new device joins with,
 * and revoking one (a lost laptop). The devices themselves speak the wire in server/devices/.
 * Schemas: contract/node/devices.ts.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { Device, DeviceIdParams, DeviceLinkCreated, DeviceList } from '../../../../contract/node/devices.ts';
import type { DeviceService } from '../../../devices/service.ts';

const tags = ['owner'];

export async function deviceOwnerRoutes(app: FastifyInstance, { devices }: { devices: DeviceService }): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/v1/node/devices',
    {
      config: { auth: 'owner' },
      schema: { tags, summary: 'The devices that hold this node’s identities, this one among them', response: { 200: DeviceList } },
    },
    async () => devices.list(),
  );

  api.post(
    '/v1/node/devices/link',
    {
      config: { auth: 'owner' },
      schema: { tags, summary: 'A one-time code (ten minutes) and the URL a new device joins at', response: { 201: DeviceLinkCreated } },
    },
    async (_request, reply) => reply.code(201).send(devices.link()),
  );

  api.delete(
    '/v1/node/devices/:device_id',
    {
      config: { auth: 'owner' },
      schema: { tags, summary: 'Revoke a device: it receives nothing from now on', params: DeviceIdParams, response: { 200: Device } },
    },
    async (request) => devices.revoke(request.params.device_id),
  );
}
