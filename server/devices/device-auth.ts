/**
 * The check of a request from another of the owner's devices (device-request.ts says what is
 * signed): the device must be on this node's list and not revoked, the timestamp within the
 * window, and the signature by the key the list holds for it. A revoked device is refused from
 * the moment it is revoked, whatever it signs.
 */
import type { FastifyRequest } from 'fastify';
import { checkRequestTimestamp } from '../auth/timestamp.ts';
import { publicKeyFromDidKey } from '../crypto/did-key.ts';
import { verifyBytes } from '../crypto/ed25519.ts';
import { fromBase64Url } from '../crypto/encoding.ts';
import { unauthorized } from '../errors.ts';
import type { DeviceAuthenticator } from '../http/route-auth.ts';
import { DEVICE_HEADER, DEVICE_SCHEME, DEVICE_TIMESTAMP_HEADER, deviceRequestBytes } from './device-request.ts';
import type { DeviceService } from './service.ts';

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export function deviceAuthenticator(devices: DeviceService, now: () => Date): DeviceAuthenticator {
  return (request) => {
    const authorization = header(request, 'authorization') ?? '';
    const deviceId = header(request, DEVICE_HEADER);
    if (!authorization.startsWith(`${DEVICE_SCHEME} `) || deviceId === undefined) {
      throw unauthorized('SVC_ERR_AUTH_MISSING', `a device request carries ${DEVICE_HEADER} and Authorization: ${DEVICE_SCHEME} <signature>`, DEVICE_SCHEME);
    }
    const timestamp = header(request, DEVICE_TIMESTAMP_HEADER);
    checkRequestTimestamp(timestamp, 'X-SVC-Timestamp', now(), DEVICE_SCHEME);
    const device = devices.other(deviceId);
    const signature = fromBase64Url(authorization.slice(DEVICE_SCHEME.length + 1).trim());
    const bytes = deviceRequestBytes({ deviceId, method: request.method, path: request.url, timestamp: timestamp!, body: request.body });
    if (signature === null || !verifyBytes(publicKeyFromDidKey(device.sign_key)!, bytes, signature)) {
      throw unauthorized('SVC_ERR_SIGNATURE_INVALID', 'the device signature does not verify', DEVICE_SCHEME);
    }
    // Listed and signed by its key; now whether it may still ask.
    return devices.admit(device).device_id;
  };
}
