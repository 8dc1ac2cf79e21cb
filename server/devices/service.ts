/**
 * This node's linked devices (docs/design/devices-and-recovery.md, "Linked devices"): the list,
 * one-time link codes, the linking side of a join, the snapshot a joining device fetches, and
 * revocation.
 *
 * A join, on this side: the request proves the code (join-proof.ts) and the new device's key;
 * in one transaction the device is listed and the code used, so a code works once even when two
 * devices race with it. Then the history is written as a backup of this node into a folder kept
 * for that device alone (`DATA/device-links/<device_id>`: sealed chunks and a manifest under the
 * backup key), and AFTER it the keys bundle is made (keys-bundle.ts), so the bundle holds every
 * key the snapshot's rows name. The new device fetches the folder's files with requests signed by
 * its key, and says when it is done; the folder is removed then, when the device is revoked, or
 * an hour after the code expired.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { NodeContext } from '../context.ts';
import { isDidKey, publicKeyFromDidKey } from '../crypto/did-key.ts';
import { fromBase64Url, toBase64Url } from '../crypto/encoding.ts';
import { verifyBytes } from '../crypto/ed25519.ts';
import { checkRequestTimestamp } from '../auth/timestamp.ts';
import { wipeKeyMaterial } from '../custody/key-material.ts';
import { conflict, forbidden, invalid, notFound, unauthorized } from '../errors.ts';
import { DEVICES_TOPIC } from '../events/bus.ts';
import { writeBackup, type BackupPart } from '../recovery/backup/index.ts';
import { schemaVersion } from '../store/migrate.ts';
import {
  DEVICE_LINK_CODE_SECONDS,
  type Device,
  type DeviceJoinAnswer,
  type DeviceJoinInput,
  type DeviceLinkCreated,
  type DeviceList,
} from '../../contract/node/devices.ts';
import { DeviceStore, type DeviceRow } from './device-store.ts';
import { answerBytes, codeIdOf, joinBytes, linkKeyOf, mac, macMatches } from './join-proof.ts';
import { sealBundle } from './keys-bundle.ts';
import { LinkCodeStore } from './link-code-store.ts';

/** How long a joining device has to fetch its snapshot once its code expired. */
const SNAPSHOT_GRACE_MS = 60 * 60 * 1000;
const DEVICE_ID = /^dev_[0-9a-f]{24}$/;

export interface DeviceServiceOptions {
  /** The node's data dir: the snapshots kept for joining devices live in `device-links/` there. */
  dataDir: string;
  nodeId: string;
  /** This device's name when it lists itself the first time (default: the computer's name). */
  name?: string;
}

export class DeviceService {
  readonly #ctx: NodeContext;
  readonly #store: DeviceStore;
  readonly #codes: LinkCodeStore;
  readonly #options: DeviceServiceOptions;
  #self: DeviceRow | null = null;

  constructor(ctx: NodeContext, options: DeviceServiceOptions) {
    this.#ctx = ctx;
    this.#store = new DeviceStore(ctx.db);
    this.#codes = new LinkCodeStore(ctx.db);
    this.#options = options;
  }

  /** This device's row; listed the first time it is asked for (a node made before devices, or restored from a kit). */
  self(): DeviceRow {
    if (this.#self !== null) return this.#self;
    const { signKey, boxKey } = this.#ctx.custody.deviceKeys();
    let row = this.#store.bySignKey(signKey);
    if (row === undefined) {
      row = {
        device_id: newDeviceId(),
        name: deviceNameOf(this.#options.name ?? hostname()),
        sign_key: signKey,
        box_key: boxKey,
        url: null,
        linked_at: this.#now(),
        last_seen_at: null,
        revoked_at: null,
      };
      this.#store.insert(row);
    }
    this.#self = row;
    return row;
  }

  list(): DeviceList {
    const self = this.self();
    return { devices: this.#store.all().map((row) => deviceOf(row, row.device_id === self.device_id)) };
  }

  /** A one-time code and where to use it; only the key derived from it is kept. */
  link(): DeviceLinkCreated {
    this.self();
    this.#prune();
    const code = `svc_link_${randomBytes(16).toString('hex')}`;
    const linkKey = linkKeyOf(code);
    const now = this.#ctx.clock.now();
    const expiresAt = new Date(now.getTime() + DEVICE_LINK_CODE_SECONDS * 1000).toISOString();
    this.#codes.insert(codeIdOf(linkKey), linkKey, now.toISOString(), expiresAt);
    const url = this.#ctx.urls.public_url ?? this.#ctx.urls.core_url;
    return { code, url, expires_at: expiresAt, command: `svc-node device join ${url} ${code} --data NEW_DIR` };
  }

  /** The linking side of a join (above). */
  async join(input: DeviceJoinInput): Promise<DeviceJoinAnswer> {
    const self = this.self();
    const now = this.#ctx.clock.now();
    checkRequestTimestamp(input.timestamp, 'timestamp', now, 'SVCDevice');
    const linkKey = this.#codes.usableKey(input.code_id, now.toISOString());
    const fields = { code_id: input.code_id, name: input.name, sign_key: input.sign_key, box_key: input.box_key, url: input.url, timestamp: input.timestamp };
    const bytes = joinBytes(fields);
    if (linkKey === null || !macMatches(linkKey, bytes, input.proof)) {
      throw forbidden('SVC_ERR_DEVICE_LINK_CODE_INVALID', 'the link code is unknown, already used or expired, or the join does not prove it: make a new one');
    }
    const signKey = isDidKey(input.sign_key) ? publicKeyFromDidKey(input.sign_key) : null;
    const signature = fromBase64Url(input.signature);
    if (signKey === null || signature === null || !verifyBytes(signKey, bytes, signature)) {
      throw unauthorized('SVC_ERR_SIGNATURE_INVALID', 'the join is not signed by the device key it names', 'SVCDevice');
    }
    const boxKey = fromBase64Url(input.box_key);
    if (boxKey?.length !== 32)
      throw invalid('SVC_ERR_VALIDATION', [{ loc: ['body', 'box_key'], msg: 'must be a 32-byte X25519 public key', type: 'value_error' }]);

    const row: DeviceRow = {
      device_id: newDeviceId(),
      name: input.name,
      sign_key: input.sign_key,
      box_key: boxKey,
      url: input.url,
      linked_at: now.toISOString(),
      last_seen_at: now.toISOString(),
      revoked_at: null,
    };
    const db = this.#ctx.db;
    db.transaction(() => {
      if (this.#store.bySignKey(input.sign_key) !== undefined) throw conflict('SVC_ERR_DEVICE_KEY_TAKEN', 'a device with this signing key is already listed');
      this.#store.insert(row);
      if (!this.#codes.use(input.code_id, row.device_id, now.toISOString())) {
        throw forbidden('SVC_ERR_DEVICE_LINK_CODE_INVALID', 'the link code was used meanwhile: make a new one');
      }
    })();
    this.#ctx.bus.publish(DEVICES_TOPIC);

    const folder = this.#linkFolder(row.device_id);
    let backupId: string;
    try {
      ({ backup_id: backupId } = await writeBackup({
        db,
        dir: folder,
        backupKey: this.#ctx.custody.backupKey(),
        // The worker reads the pages over its own connection: the node keeps answering meanwhile.
        databaseKey: this.#ctx.custody.databaseKey(),
        nodeId: this.#options.nodeId,
        now,
        assetsDir: join(this.#options.dataDir, 'assets'),
      }));
    } catch (error) {
      // The join did not happen: the device is not listed, and its code works again until it expires.
      db.transaction(() => {
        this.#codes.release(input.code_id);
        this.#store.remove(row.device_id);
      })();
      await rm(folder, { recursive: true, force: true });
      this.#ctx.bus.publish(DEVICES_TOPIC);
      throw error;
    }
    // After the snapshot: every key its rows name is in custody by now, and so in the bundle.
    const keys = this.#ctx.custody.recoveryKeys();
    let bundle;
    try {
      bundle = sealBundle(keys, schemaVersion(db), this.#options.nodeId, row.device_id, boxKey);
    } finally {
      wipeKeyMaterial(keys);
    }
    const answer = {
      device_id: row.device_id,
      node_id: this.#options.nodeId,
      linker: { device_id: self.device_id, name: self.name, sign_key: self.sign_key },
      bundle,
      snapshot: { backup_id: backupId },
    };
    const signed = answerBytes(answer, input.sign_key);
    return { ...answer, proof: mac(linkKey, signed), signature: toBase64Url(this.#ctx.custody.deviceSign(signed)) };
  }

  /** A file of the snapshot kept for `device` while it joins. */
  async snapshotPart(device: DeviceRow, part: BackupPart): Promise<Buffer> {
    const folder = this.#linkFolder(device.device_id);
    const path = part.kind === 'manifest' ? join(folder, 'manifests', `${part.backupId}.manifest`) : join(folder, 'chunks', part.name);
    const bytes = await readFile(path).catch(() => null);
    if (bytes === null) throw notFound('SVC_ERR_DEVICE_SNAPSHOT_NOT_FOUND', 'no such part in the snapshot kept for this device');
    return bytes;
  }

  /** The joining device has everything: its snapshot goes. */
  async joined(device: DeviceRow): Promise<void> {
    await rm(this.#linkFolder(device.device_id), { recursive: true, force: true });
  }

  /** Revokes a device: every request it signs is refused from now on, and its snapshot (if any) goes. */
  async revoke(deviceId: string): Promise<Device> {
    const self = this.self();
    const row = this.#store.get(deviceId);
    if (row === undefined) throw notFound('SVC_ERR_DEVICE_NOT_FOUND', `this node has no device ${deviceId}`);
    if (row.device_id === self.device_id)
      throw conflict('SVC_ERR_DEVICE_IS_THIS_ONE', 'this is the device you are using: revoke it from another of your devices');
    if (row.revoked_at === null) {
      this.#store.revoke(deviceId, this.#now());
      this.#ctx.bus.publish(DEVICES_TOPIC);
    }
    await rm(this.#linkFolder(deviceId), { recursive: true, force: true });
    return deviceOf(this.#store.get(deviceId)!, false);
  }

  /** Another device on this node's list (revoked or not); a 401 for one that is not, or for this device itself. */
  other(deviceId: string): DeviceRow {
    const row = this.#store.get(deviceId);
    if (row === undefined || row.device_id === this.self().device_id) {
      throw unauthorized('SVC_ERR_DEVICE_UNKNOWN', `device ${deviceId} is not on this node's device list`, 'SVCDevice');
    }
    return row;
  }

  /** A device whose request checked out (device-auth.ts): refused once revoked, else marked seen. */
  admit(row: DeviceRow): DeviceRow {
    if (row.revoked_at !== null) throw forbidden('SVC_ERR_DEVICE_REVOKED', `device ${row.device_id} was revoked at ${row.revoked_at}`);
    this.#store.seen(row.device_id, this.#now());
    return row;
  }

  /** A device as it is on the list now: listed, not revoked (a long poll asks again after it waited). */
  requireLive(deviceId: string): DeviceRow {
    return this.admit(this.other(deviceId));
  }

  /** The other devices that may still sync with this one: listed, not revoked. */
  liveOthers(): DeviceRow[] {
    const self = this.self();
    return this.#store.all().filter((row) => row.device_id !== self.device_id && row.revoked_at === null);
  }

  /** Removes snapshots kept for devices that never finished joining, and codes that can no longer work. */
  async sweep(): Promise<void> {
    this.#prune();
    const root = join(this.#options.dataDir, 'device-links');
    const names = await readdir(root).catch(() => [] as string[]);
    const cutoff = this.#ctx.clock.now().getTime() - DEVICE_LINK_CODE_SECONDS * 1000 - SNAPSHOT_GRACE_MS;
    for (const name of names) {
      const found = await stat(join(root, name)).catch(() => null);
      if (found !== null && found.mtimeMs < cutoff) await rm(join(root, name), { recursive: true, force: true });
    }
  }

  #prune(): void {
    this.#codes.prune(new Date(this.#ctx.clock.now().getTime() - SNAPSHOT_GRACE_MS).toISOString());
  }

  #linkFolder(deviceId: string): string {
    if (!DEVICE_ID.test(deviceId)) throw notFound('SVC_ERR_DEVICE_NOT_FOUND', `this node has no device ${deviceId}`);
    return join(this.#options.dataDir, 'device-links', deviceId);
  }

  #now(): string {
    return this.#ctx.clock.now().toISOString();
  }
}

function newDeviceId(): string {
  return `dev_${randomBytes(12).toString('hex')}`;
}

/** A computer's name as a device name: one printable line of at most 64 characters. */
export function deviceNameOf(name: string): string {
  const clean = name
    .replace(/[\p{Cc}\p{Cf}]/gu, '')
    .trim()
    .slice(0, 64);
  return clean === '' ? 'this computer' : clean;
}

function deviceOf(row: DeviceRow, thisDevice: boolean): Device {
  const { device_id, name, sign_key, url, linked_at, last_seen_at, revoked_at } = row;
  return { device_id, name, sign_key, url, this_device: thisDevice, linked_at, last_seen_at, revoked_at };
}
