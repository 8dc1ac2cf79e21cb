/**
 * Requests from one of the person's devices to another, after the join: signed with the sending
 * device's key over the method, the request target, the time and the body, and checked against
 * the receiving device's list (device-auth.ts). The headers:
 *
 *   X-SVC-Device:    the sending device's id
 *   X-SVC-Timestamp: RFC 3339, second precision, within five minutes of the receiver's clock
 *   Authorization:   SVCDevice <base64url Ed25519 signature>
 *
 * What is signed: the canonical JSON of `{type: "svc.device.request", device_id, method, path,
 * timestamp, body_sha256}`, `body_sha256` the SHA-256 (hex) of the canonical JSON of the body, or
 * null for none. The path is the request target as sent, query included.
 */
import { canonicalJson, canonicalJsonBytes } from '../crypto/canonical-json.ts';
import { sha256Hex, toBase64Url } from '../crypto/encoding.ts';

export const DEVICE_HEADER = 'x-svc-device';
export const DEVICE_TIMESTAMP_HEADER = 'x-svc-timestamp';
export const DEVICE_SCHEME = 'SVCDevice';
export const REQUEST_TYPE = 'svc.device.request';

export interface DeviceRequestFields {
  deviceId: string;
  method: string;
  path: string;
  timestamp: string;
  /** The body as JSON will carry it; undefined for none. */
  body: unknown;
}

export function deviceRequestBytes({ deviceId, method, path, timestamp, body }: DeviceRequestFields): Buffer {
  return canonicalJsonBytes({
    type: REQUEST_TYPE,
    device_id: deviceId,
    method: method.toUpperCase(),
    path,
    timestamp,
    body_sha256: body === undefined || body === null ? null : sha256Hex(canonicalJson(body)),
  });
}

/** The headers of a request signed by `sign` (the sending device's key). */
export function deviceRequestHeaders(fields: DeviceRequestFields, sign: (bytes: Uint8Array) => Uint8Array): Record<string, string> {
  return {
    [DEVICE_HEADER]: fields.deviceId,
    [DEVICE_TIMESTAMP_HEADER]: fields.timestamp,
    authorization: `${DEVICE_SCHEME} ${toBase64Url(sign(deviceRequestBytes(fields)))}`,
  };
}
