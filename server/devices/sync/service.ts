/**
 * Sync between this device and the owner's other devices (docs/adr/0010-device-sync-op-log.md).
 *
 * - Capture: while the node has another live device, every change to a synced table is written
 *   to device_ops by triggers (capture-store.ts); the SQL functions they call are defined here on
 *   the node's connection: this device's id, its change numbers and the Lamport clock.
 * - Serving: another device pulls what it lacks (a long poll: the answer waits up to 20 s for a
 *   change) and pushes what this one lacks; both are device-signed requests (device-auth.ts),
 *   sealed end to end (sync-wire.ts).
 * - Asking: for each other device whose URL this one knows (the one it joined, an always-on
 *   node), a loop keeps a long poll open, applies what arrives, and pushes this device's changes
 *   as they are made. A device behind no listener (a laptop) is reached only this way: it asks.
 *
 * New keys travel too: each pull says which keys the asker holds (a digest), and the answer and
 * the next push carry the keys sealed to the other device when the two differ (custody.mergeKeys:
 * a destroyed or archived key never comes back).
 */
import type { NodeContext } from '../../context.ts';
import { wipeKeyMaterial } from '../../custody/key-material.ts';
import { DEVICES_TOPIC } from '../../events/bus.ts';
import { answerJson, RemoteClient } from '../../net/remote-client.ts';
import { conflict } from '../../errors.ts';
import { schemaVersion } from '../../store/migrate.ts';
import { CAPTURE_FUNCTION, DEVICE_FUNCTION, SEQ_FUNCTION, TICK_FUNCTION } from '../../store/sync-functions.ts';
import { signingTimestamp } from '../../clock.ts';
import { SYNC_WAIT_MAX_MS, SyncPullAnswer, SyncPushAnswer, type SyncPullInput, type SyncPushInput } from '../../../contract/node/devices.ts';
import { deviceRequestHeaders } from '../device-request.ts';
import type { DeviceRow } from '../device-store.ts';
import { openBundle, sealBundle, type SealedBundle } from '../keys-bundle.ts';
import type { DeviceService } from '../service.ts';
import { ChangeApplier } from './apply.ts';
import { captureInstalled, installCapture, removeCapture } from './capture-store.ts';
import { maxLamport, maxSeq, opsAfter, prunedPast, pruneOps, vectorOf, type DeviceOp, type Vector } from './op-log-store.ts';
import { openOps, sealOps, syncKeyOf } from './sync-wire.ts';
import { SYNCED_TABLES } from './tables.ts';

/** The most changes, and about the most bytes of them, one answer or push carries. */
const BATCH_OPS = 1000;
const BATCH_BYTES = 1024 * 1024;
/** How long the changes are kept: a device away longer links again. */
export const OP_LOG_DAYS = 90;
const DAY_MS = 24 * 60 * 60 * 1000;
/** How often old changes are forgotten. */
const PRUNE_EVERY_MS = DAY_MS;
/** How long a loop waits before asking again after a failure, at first and at most. */
const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 30_000;

export interface DeviceSyncOptions {
  /** The longest a loop's long poll waits (tests shorten it). */
  waitMs?: number;
  /** Told of a loop's failure (the node logs it); the loop tries again. */
  onError?: (error: unknown, device: DeviceRow) => void;
}

export class DeviceSync {
  readonly #ctx: NodeContext;
  readonly #devices: DeviceService;
  readonly #nodeId: string;
  readonly #options: DeviceSyncOptions;
  readonly #applier: ChangeApplier;
  readonly #loops = new Map<string, PeerLoop>();
  readonly #waiters = new Set<() => void>();
  #selfId = '';
  #seq = 0;
  #lamport = 0;
  #capturing = true;
  #wakeScheduled = false;
  #unsubscribe: (() => void) | null = null;
  #client: RemoteClient | null = null;
  #pruneTimer: NodeJS.Timeout | null = null;
  #key: Buffer | null = null;

  constructor(ctx: NodeContext, devices: DeviceService, nodeId: string, options: DeviceSyncOptions = {}) {
    this.#ctx = ctx;
    this.#devices = devices;
    this.#nodeId = nodeId;
    this.#options = options;
    this.#applier = new ChangeApplier(ctx.db, SYNCED_TABLES);
  }

  get deviceId(): string {
    return this.#selfId;
  }

  start(): void {
    const db = this.#ctx.db;
    this.#selfId = this.#devices.self().device_id;
    this.#seq = maxSeq(db, this.#selfId);
    this.#lamport = maxLamport(db);
    db.function(CAPTURE_FUNCTION, { deterministic: false }, () => (this.#capturing ? 1 : 0));
    db.function(DEVICE_FUNCTION, { deterministic: false }, () => this.#selfId);
    db.function(SEQ_FUNCTION, { deterministic: false }, () => {
      this.#changed();
      return ++this.#seq;
    });
    db.function(TICK_FUNCTION, { deterministic: false }, () => ++this.#lamport);
    this.#client = new RemoteClient(this.#ctx.dns, { timeoutMs: this.#waitMs() + 15_000 });
    // Made anew from the schema as this version has it (a migration may have added columns).
    if (this.#devices.liveOthers().length > 0) installCapture(db, SYNCED_TABLES);
    this.refresh();
    this.#unsubscribe = this.#ctx.bus.subscribe(DEVICES_TOPIC, () => this.refresh());
    this.prune();
    this.#pruneTimer = setInterval(() => this.prune(), PRUNE_EVERY_MS);
    this.#pruneTimer.unref();
  }

  /** Forgets changes older than OP_LOG_DAYS on the node's clock. */
  prune(): number {
    return pruneOps(this.#ctx.db, new Date(this.#ctx.clock.now().getTime() - OP_LOG_DAYS * DAY_MS).toISOString());
  }

  /** Captures while another device is live, and keeps a loop to each one whose URL is known. */
  refresh(): void {
    const db = this.#ctx.db;
    const others = this.#devices.liveOthers();
    if (others.length > 0 && !captureInstalled(db)) installCapture(db, SYNCED_TABLES);
    if (others.length === 0 && captureInstalled(db)) removeCapture(db);
    const wanted = new Map(others.filter((device) => device.url !== null).map((device) => [device.device_id, device]));
    for (const [id, loop] of this.#loops) {
      if (!wanted.has(id)) {
        loop.stop();
        this.#loops.delete(id);
      }
    }
    for (const [id, device] of wanted) {
      if (this.#loops.has(id) || this.#client === null) continue;
      const loop = new PeerLoop(this, device, this.#client, this.#waitMs(), (error) => this.#options.onError?.(error, device));
      this.#loops.set(id, loop);
      loop.start();
    }
    // A revoked device's long poll ends now, refused on its next request.
    this.#wake();
  }

  async stop(): Promise<void> {
    if (this.#pruneTimer !== null) clearInterval(this.#pruneTimer);
    this.#pruneTimer = null;
    this.#unsubscribe?.();
    this.#unsubscribe = null;
    const loops = [...this.#loops.values()];
    this.#loops.clear();
    for (const loop of loops) loop.stop();
    this.#wake();
    // Closing the client ends the loops' requests in flight; they see they are stopped and end.
    this.#client?.close();
    this.#client = null;
    await Promise.all(loops.map((loop) => loop.done));
    this.#key?.fill(0);
    this.#key = null;
  }

  /** Another device asks for what it lacks (device-auth checked it is live). */
  async pull(device: DeviceRow, input: SyncPullInput): Promise<SyncPullAnswer> {
    const behind = prunedPast(this.#ctx.db, input.have);
    if (behind !== null) {
      throw conflict(
        'SVC_ERR_DEVICE_SYNC_TOO_FAR_BEHIND',
        `this device no longer holds changes of device ${behind} that the asking device lacks (it was away more than ${OP_LOG_DAYS} days): link it again`,
      );
    }
    let batch = this.batchFor(input.have);
    if (batch.ops.length === 0 && input.wait_ms > 0) {
      await this.#waitForChange(Math.min(input.wait_ms, SYNC_WAIT_MAX_MS));
      // Revoked while it waited: it gets nothing.
      this.#devices.requireLive(device.device_id);
      batch = this.batchFor(input.have);
    }
    const digest = this.#ctx.custody.keyStatesDigest();
    return {
      have: vectorOf(this.#ctx.db),
      sealed: sealOps(this.#syncKey(), this.#selfId, device.device_id, batch.ops),
      more: batch.more,
      keys_digest: digest,
      keys: input.keys_digest === digest ? null : this.sealKeysFor(device),
    };
  }

  /** Another device sends what this one lacks. */
  push(device: DeviceRow, input: SyncPushInput): { received: number; applied: number } {
    const ops = openOps(this.#syncKey(), device.device_id, this.#selfId, input.sealed);
    if (input.keys !== null) this.mergeKeys(input.keys);
    return this.applyOps(ops);
  }

  /** Applies changes from another device, with capture off, and tells the node's streams. */
  applyOps(ops: readonly DeviceOp[]): { received: number; applied: number } {
    if (ops.length === 0) return { received: 0, applied: 0 };
    const db = this.#ctx.db;
    this.#capturing = false;
    let result;
    try {
      result = db.transaction(() => this.#applier.apply(ops))();
    } finally {
      this.#capturing = true;
    }
    for (const op of ops) this.#lamport = Math.max(this.#lamport, op.lamport);
    for (const topic of result.nudges) this.#ctx.bus.publish(topic);
    // What arrived may be what a third device lacks.
    if (result.received > 0) this.#changed();
    return { received: result.received, applied: result.applied };
  }

  /** The changes `have` lacks, at most a batch. */
  batchFor(have: Vector): { ops: DeviceOp[]; more: boolean } {
    const { ops, more } = opsAfter(this.#ctx.db, have, BATCH_OPS);
    let bytes = 0;
    let cut = ops.length;
    for (let i = 0; i < ops.length; i += 1) {
      bytes += (ops[i]!.row?.length ?? 0) + ops[i]!.key.length + 128;
      if (bytes > BATCH_BYTES && i > 0) {
        cut = i;
        break;
      }
    }
    return { ops: ops.slice(0, cut), more: more || cut < ops.length };
  }

  sealKeysFor(device: DeviceRow): SealedBundle {
    const keys = this.#ctx.custody.recoveryKeys();
    try {
      return sealBundle(keys, schemaVersion(this.#ctx.db), this.#nodeId, device.device_id, device.box_key);
    } finally {
      wipeKeyMaterial(keys);
    }
  }

  mergeKeys(sealed: SealedBundle): void {
    const contents = openBundle(sealed, this.#nodeId, this.#selfId, this.#ctx.custody.deviceAgreement());
    try {
      this.#ctx.db.transaction(() => this.#ctx.custody.mergeKeys(contents.keys))();
    } finally {
      wipeKeyMaterial(contents.keys);
    }
  }

  keysDigest(): string {
    return this.#ctx.custody.keyStatesDigest();
  }

  vector(): Vector {
    return vectorOf(this.#ctx.db);
  }

  sealFor(device: DeviceRow, ops: readonly DeviceOp[]): string {
    return sealOps(this.#syncKey(), this.#selfId, device.device_id, ops);
  }

  openFrom(device: DeviceRow, sealed: string): DeviceOp[] {
    return openOps(this.#syncKey(), device.device_id, this.#selfId, sealed);
  }

  /** The headers of a request to another device, signed with this device's key. */
  signedHeaders(method: string, path: string, body: unknown): Record<string, string> {
    return deviceRequestHeaders({ deviceId: this.#selfId, method, path, timestamp: signingTimestamp(this.#ctx.clock), body }, (bytes) =>
      this.#ctx.custody.deviceSign(bytes),
    );
  }

  /** Resolves at the next change (this device's own or applied), or after `ms`. */
  #waitForChange(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.#waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#waiters.add(done);
    });
  }

  /** A change was written: once its transaction is done, the long polls answer and the loops push. */
  #changed(): void {
    if (this.#wakeScheduled) return;
    this.#wakeScheduled = true;
    setImmediate(() => {
      this.#wakeScheduled = false;
      this.#wake();
    });
  }

  #wake(): void {
    for (const waiter of [...this.#waiters]) waiter();
    for (const loop of this.#loops.values()) loop.localChange();
  }

  /** Derived once a run: the backup key it comes from changes only in a restore or a join, with no node running. */
  #syncKey(): Buffer {
    if (this.#key === null) {
      const backupKey = this.#ctx.custody.backupKey();
      try {
        this.#key = syncKeyOf(backupKey);
      } finally {
        backupKey.fill(0);
      }
    }
    return this.#key;
  }

  #waitMs(): number {
    return this.#options.waitMs ?? SYNC_WAIT_MAX_MS;
  }
}

/**
 * The asking side, to one device: a long poll that applies what arrives, and a push of this
 * device's changes whenever there are some the other lacks. Failures back off and try again.
 */
class PeerLoop {
  readonly #sync: DeviceSync;
  readonly #device: DeviceRow;
  readonly #client: RemoteClient;
  readonly #waitMs: number;
  readonly #onError: (error: unknown) => void;
  #stopped = false;
  readonly #abort = new AbortController();
  /** What the other device holds, as its last answer said. */
  #peerHave: Vector | null = null;
  #peerDigest: string | null = null;
  #pushing: Promise<void> | null = null;
  #pushAgain = false;
  done: Promise<void> = Promise.resolve();

  constructor(sync: DeviceSync, device: DeviceRow, client: RemoteClient, waitMs: number, onError: (error: unknown) => void) {
    this.#sync = sync;
    this.#device = device;
    this.#client = client;
    this.#waitMs = waitMs;
    this.#onError = onError;
  }

  start(): void {
    this.done = this.#run();
  }

  stop(): void {
    this.#stopped = true;
    this.#abort.abort();
  }

  /** Read through a method: the loop's own checks must see a stop() made while it awaited. */
  #isStopped(): boolean {
    return this.#stopped;
  }

  /** This device made (or applied) a change: push it. */
  localChange(): void {
    if (this.#stopped || this.#peerHave === null) return;
    if (this.#pushing !== null) {
      this.#pushAgain = true;
      return;
    }
    this.#pushing = this.#push()
      .catch((error: unknown) => this.#onError(error))
      .finally(() => {
        this.#pushing = null;
        if (this.#pushAgain) {
          this.#pushAgain = false;
          this.localChange();
        }
      });
  }

  async #run(): Promise<void> {
    let retry = RETRY_MIN_MS;
    let wait = 0;
    while (!this.#isStopped()) {
      try {
        const answer = await this.#pull(wait);
        retry = RETRY_MIN_MS;
        // Caught up with it: from now on, wait for its next change; first, send it what it lacks.
        wait = answer.more ? 0 : this.#waitMs;
        this.localChange();
      } catch (error) {
        if (this.#isStopped()) break;
        this.#onError(error);
        await sleep(retry, this.#abort.signal);
        retry = Math.min(retry * 2, RETRY_MAX_MS);
        wait = 0;
      }
    }
  }

  async #pull(waitMs: number): Promise<SyncPullAnswer> {
    const body = { have: this.#sync.vector(), wait_ms: waitMs, keys_digest: this.#sync.keysDigest() };
    const answer = SyncPullAnswer.parse(await this.#ask('/v1/devices/sync/pull', body, waitMs));
    if (answer.keys !== null) this.#sync.mergeKeys(answer.keys);
    this.#sync.applyOps(this.#sync.openFrom(this.#device, answer.sealed));
    this.#peerHave = answer.have;
    this.#peerDigest = answer.keys_digest;
    return answer;
  }

  async #push(): Promise<void> {
    for (;;) {
      if (this.#stopped || this.#peerHave === null) return;
      const { ops, more } = this.#sync.batchFor(this.#peerHave);
      const keys = this.#peerDigest !== null && this.#peerDigest !== this.#sync.keysDigest() ? this.#sync.sealKeysFor(this.#device) : null;
      if (ops.length === 0 && keys === null) return;
      SyncPushAnswer.parse(await this.#ask('/v1/devices/sync/push', { sealed: this.#sync.sealFor(this.#device, ops), keys }, 0));
      const have = { ...this.#peerHave };
      for (const op of ops) have[op.origin] = Math.max(have[op.origin] ?? 0, op.seq);
      this.#peerHave = have;
      if (keys !== null) this.#peerDigest = this.#sync.keysDigest();
      if (!more) return;
    }
  }

  async #ask(path: string, body: unknown, waitMs: number): Promise<unknown> {
    const answer = await this.#client.request(
      { url: this.#device.url!, via: 'peer' },
      {
        method: 'POST',
        path,
        json: JSON.stringify(body),
        headers: this.#sync.signedHeaders('POST', path, body),
        maxBytes: 4 * 1024 * 1024,
        timeoutMs: waitMs + 15_000,
      },
    );
    if (answer.status !== 200) throw new Error(`${this.#device.url!}${path} answered ${answer.status}: ${answer.body.toString('utf8').slice(0, 200)}`);
    return answerJson(answer);
  }
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
