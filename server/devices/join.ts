/**
 * `svc-node device join <url> <code> --data NEW_DIR`: this machine becomes a linked device of the
 * node at `url`. It runs in the CLI's process, on a data dir no node runs on yet:
 *
 * 1. A device secret is made here (custody's device-key.ts); the join proves the code without
 *    sending it and is signed with the new device key (join-proof.ts).
 * 2. The answer is believed only once it proves the same code and its signature checks; the keys
 *    bundle in it opens only with this device's key (keys-bundle.ts).
 * 3. The snapshot the linking device wrote for this one is fetched, sealed part by part, with
 *    requests signed by the device key (recovery/backup/fetch-backup.ts), and read with the
 *    backup key the bundle carried, as `kit restore --backup` reads a backup.
 * 4. The data dir is built in a temporary sibling, as kit restore builds one: custody under a new
 *    secret, the database from the snapshot, every key of the bundle installed, the device secret
 *    kept, and what belongs to the other device left out (device-copy-store.ts). It is renamed
 *    into place only once whole; a failure at any step leaves nothing.
 * 5. The linking device is told the snapshot arrived, so it removes the copy it kept.
 *
 * Every request goes through the guarded client (server/net/cli-client.ts): no redirect is
 * followed, each has a time budget and a size cap.
 */
import { rmSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { signingTimestamp, systemClock } from '../clock.ts';
import { publicKeyFromDidKey } from '../crypto/did-key.ts';
import { verifyBytes } from '../crypto/ed25519.ts';
import { fromBase64Url, toBase64Url } from '../crypto/encoding.ts';
import { DeviceKeys, newDeviceSecret } from '../custody/device-key.ts';
import { wipeKeyMaterial, type KeyMaterial } from '../custody/key-material.ts';
import type { Warn } from '../custody/types.ts';
import type { DnsResolver } from '../dns/resolver.ts';
import { requestNode } from '../net/cli-client.ts';
import { answerJson } from '../net/remote-client.ts';
import { fetchBackup, restoreDatabase, type BackupPart } from '../recovery/backup/index.ts';
import { buildDataDir, freeDataDir } from '../recovery/new-data-dir.ts';
import { dropKeysNotIn, heldKeys, installKeys } from '../recovery/kit/restore.ts';
import type { KitContents } from '../recovery/kit/payload.ts';
import { DeviceJoinAnswer, DeviceName } from '../../contract/node/devices.ts';
import { identityCount, leaveOutOtherDevicesState } from './device-copy-store.ts';
import { deviceRequestHeaders } from './device-request.ts';
import { DeviceStore } from './device-store.ts';
import { answerBytes, codeIdOf, joinBytes, linkKeyOf, mac, macMatches, normaliseCode } from './join-proof.ts';
import { openBundle } from './keys-bundle.ts';
import { deviceNameOf } from './service.ts';

/** The join: the linking device writes the snapshot before it answers (a large node, minutes). */
const JOIN_BUDGET = { timeoutMs: 30 * 60_000, maxBytes: 1024 * 1024 };
/** One sealed part of the snapshot: a chunk is at most 1 MiB and its seal. */
const PART_BUDGET = { timeoutMs: 120_000, maxBytes: 1024 * 1024 + 4096 };
const SMALL_BUDGET = { timeoutMs: 30_000, maxBytes: 64 * 1024 };

export interface JoinDeviceOptions {
  /** Where the linking device answers (what `device link` printed). */
  url: string;
  code: string;
  /** The new data dir: absent, or an empty folder. */
  dataDir: string;
  /** This device's name in the list (default: the computer's name). */
  name?: string;
  /** Where SVC_NODE_CUSTODY / SVC_NODE_PASSPHRASE are read (the backend `serve` would choose). */
  env?: Record<string, string | undefined>;
  warn?: Warn;
  /** The resolver the requests use (tests: a DNS server on loopback). */
  resolver?: DnsResolver;
  /** Told as the snapshot arrives. */
  onProgress?: (progress: { done: number; total: number }) => void;
  /**
   * `kit restore --link`: the node the kit is of. A device of another node is refused before
   * anything is written, and the kit's keys are taken in beside the bundle's (custody.mergeKeys:
   * a key the live device destroyed or archived stays so). The caller wipes them.
   */
  kit?: { nodeId: string; keys: KeyMaterial };
}

export interface JoinedDevice {
  data_dir: string;
  node_id: string;
  device_id: string;
  name: string;
  linked_to: { device_id: string; name: string; url: string };
  identities: number;
  keys: number;
  /** The snapshot's chunks, and its sealed bytes fetched. */
  chunks: number;
  bytes: number;
}

/** Why a join failed, in words for the person running it. */
export class JoinRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JoinRefused';
  }
}

export async function joinDevice(options: JoinDeviceOptions): Promise<JoinedDevice> {
  const dataDir = freeDataDir(options.dataDir);
  const code = normaliseCode(options.code);
  if (code === null) throw new JoinRefused('that is not a link code: it starts with svc_link_ (run `svc-node device link` on the other device)');
  const base = nodeUrl(options.url);
  const name = DeviceName.safeParse(deviceNameOf(options.name ?? hostname()));
  if (!name.success) throw new JoinRefused('the device name must be one line of at most 64 printable characters');

  const secret = newDeviceSecret();
  const device = new DeviceKeys(secret);
  const linkKey = linkKeyOf(code);
  let contents: KitContents | null = null;
  try {
    const fields = {
      code_id: codeIdOf(linkKey),
      name: name.data,
      sign_key: device.signKey,
      box_key: toBase64Url(device.boxKey),
      url: null,
      timestamp: signingTimestamp(systemClock),
    };
    const bytes = joinBytes(fields);
    const body = { ...fields, proof: mac(linkKey, bytes), signature: toBase64Url(device.sign(bytes)) };
    const answer = parseAnswer(DeviceJoinAnswer, await ask(base, '/v1/devices/join', 'POST', JOIN_BUDGET, options.resolver, { json: body }), 'join');
    const signed = answerBytes(answer, device.signKey);
    const linkerKey = publicKeyFromDidKey(answer.linker.sign_key);
    const signature = fromBase64Url(answer.signature);
    if (!macMatches(linkKey, signed, answer.proof) || linkerKey === null || signature === null || !verifyBytes(linkerKey, signed, signature)) {
      throw new JoinRefused(`the answer at ${base} does not prove the link code: it is not from the device that made it`);
    }
    if (options.kit !== undefined && answer.node_id !== options.kit.nodeId) {
      throw new JoinRefused(`the device at ${base} holds node ${answer.node_id}, not node ${options.kit.nodeId} that the kit is of`);
    }
    contents = openBundle(answer.bundle, answer.node_id, answer.device_id, device.agreement);
    const { keys } = contents;

    // The device's own requests from here on: signed with its key, as the linking device lists it.
    const signedAsk = (path: string, method: 'GET' | 'POST', budget: typeof PART_BUDGET) =>
      ask(base, path, method, budget, options.resolver, {
        headers: deviceRequestHeaders({ deviceId: answer.device_id, method, path, timestamp: signingTimestamp(systemClock), body: undefined }, (b) =>
          device.sign(b),
        ),
      });
    let fetched = { chunks: 0, bytes: 0 };
    const identities = await buildDataDir({
      dataDir,
      env: options.env ?? process.env,
      warn: options.warn,
      prepare: async (temp, custody) => {
        const snapshotDir = join(temp, 'joining-snapshot');
        fetched = await fetchBackup({
          backupKey: keys.backupKey,
          backupId: answer.snapshot.backup_id,
          dir: snapshotDir,
          fetchPart: async (part: BackupPart) => partBytes(await signedAsk(partPath(part), 'GET', PART_BUDGET), base),
          ...(options.onProgress ? { onProgress: options.onProgress } : {}),
        });
        const restored = await restoreDatabase({
          backupDir: snapshotDir,
          backupKey: keys.backupKey,
          file: join(temp, 'node.db'),
          key: custody.databaseKey(),
          assetsDir: join(temp, 'assets'),
          manifest: answer.snapshot.backup_id,
        });
        if (restored.node_id !== answer.node_id) throw new JoinRefused(`the snapshot is of node ${restored.node_id}, not of ${answer.node_id}`);
        rmSync(snapshotDir, { recursive: true, force: true });
      },
      install: (custody, db) => {
        installKeys(custody, keys);
        dropKeysNotIn(custody, keys);
        if (options.kit !== undefined) custody.mergeKeys(options.kit.keys);
        custody.replaceDeviceSecret(secret);
        leaveOutOtherDevicesState(db, answer.linker.device_id);
        const devices = new DeviceStore(db);
        if (devices.get(answer.device_id)?.sign_key !== device.signKey) {
          throw new JoinRefused('the snapshot does not list this device: it was not made for this join');
        }
        devices.setUrl(answer.linker.device_id, base);
        return identityCount(db);
      },
    });

    // The linking device may drop its copy now; if it does not hear this, it drops it within the hour.
    await signedAsk('/v1/devices/joined', 'POST', SMALL_BUDGET).catch(() => null);
    return {
      data_dir: dataDir,
      node_id: answer.node_id,
      device_id: answer.device_id,
      name: name.data,
      linked_to: { device_id: answer.linker.device_id, name: answer.linker.name, url: base },
      identities,
      keys: heldKeys(keys),
      chunks: fetched.chunks,
      bytes: fetched.bytes,
    };
  } finally {
    if (contents !== null) wipeKeyMaterial(contents.keys);
    secret.fill(0);
  }
}

function nodeUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new JoinRefused(`${text} is not a URL: use the one \`svc-node device link\` printed`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new JoinRefused(`${text} is not an http(s) URL`);
  return url.origin;
}

function partPath(part: BackupPart): string {
  return part.kind === 'manifest' ? `/v1/devices/snapshot/manifests/${part.backupId}` : `/v1/devices/snapshot/chunks/${part.name}`;
}

interface Answer {
  status: number;
  body: Buffer;
  json: unknown;
}

async function ask(
  base: string,
  path: string,
  method: 'GET' | 'POST',
  budget: { timeoutMs: number; maxBytes: number },
  resolver: DnsResolver | undefined,
  extra: { json?: unknown; headers?: Record<string, string> },
): Promise<Answer> {
  let answer;
  try {
    answer = await requestNode(
      new URL(path, base),
      {
        method,
        maxBytes: budget.maxBytes,
        timeoutMs: budget.timeoutMs,
        ...(extra.json === undefined ? {} : { json: JSON.stringify(extra.json) }),
        ...(extra.headers === undefined ? {} : { headers: extra.headers }),
      },
      ...(resolver === undefined ? [] : [resolver]),
    );
  } catch (error) {
    throw new JoinRefused(`no answer at ${base} (${(error as Error).message}): is the other device running, and is the URL the one it printed?`);
  }
  let json: unknown = null;
  try {
    json = answerJson(answer);
  } catch {
    // Not JSON: the snapshot's parts are bytes, and a refusal without JSON says its status.
  }
  if (answer.status >= 400) {
    const detail = typeof (json as { detail?: unknown } | null)?.detail === 'string' ? (json as { detail: string }).detail : `status ${answer.status}`;
    throw new JoinRefused(`${base} refused: ${detail}`);
  }
  return { status: answer.status, body: answer.body, json };
}

function parseAnswer<T extends z.ZodType>(schema: T, answer: Answer, what: string): z.output<T> {
  const parsed = schema.safeParse(answer.json);
  if (!parsed.success) throw new JoinRefused(`the answer to the ${what} is not an svc-node device's`);
  return parsed.data;
}

function partBytes(answer: Answer, base: string): Buffer {
  if (answer.status !== 200) throw new JoinRefused(`${base} answered ${answer.status} for a part of the snapshot`);
  return answer.body;
}
