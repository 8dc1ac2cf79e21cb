/**
 * The per-team asset storage quota (domain/caps.ts), enforced before and while bytes arrive:
 * what a team's ready assets take, plus what its uploads in progress have received so far, may
 * not pass the quota. Uploads in progress count, so six parallel uploads cannot each fit alone
 * and overflow together. Stored usage is read from the database once and kept until the next
 * write of that team's assets (this node is its database's only writer).
 */
import type { Db } from '../../../context.ts';
import { paymentRequired } from '../../../errors.ts';
import type { DocsBilling } from '../billing/service.ts';
import { checkStorage } from '../domain/caps.ts';
import { storedAssetBytes } from './store.ts';

/** Bytes an upload in progress holds against its team's quota; released once it ends either way. */
export interface Reservation {
  /** 402 when `bytes` more do not fit; else they are held. */
  grow(bytes: number): void;
  release(): void;
}

export class StorageQuota {
  readonly #db: Db;
  readonly #billing: DocsBilling;
  readonly #stored = new Map<string, number>();
  readonly #inFlight = new Map<string, number>();

  constructor(db: Db, billing: DocsBilling) {
    this.#db = db;
    this.#billing = billing;
  }

  /** 402 unless `incoming` more bytes fit beside the stored assets and the uploads in progress. */
  check(teamId: string, incoming: number): void {
    const used = this.#storedBytes(teamId) + (this.#inFlight.get(teamId) ?? 0);
    const over = checkStorage(this.#billing.caps().max_asset_bytes, used, incoming);
    if (over) throw paymentRequired('SVC_ERR_STORAGE_QUOTA_EXCEEDED', over);
  }

  reserve(teamId: string): Reservation {
    let held = 0;
    const release = (): void => {
      const left = (this.#inFlight.get(teamId) ?? 0) - held;
      held = 0;
      if (left > 0) this.#inFlight.set(teamId, left);
      else this.#inFlight.delete(teamId);
    };
    return {
      grow: (bytes) => {
        try {
          this.check(teamId, bytes);
        } catch (error) {
          // Refused, the upload is over: its bytes stop counting now, not once its file is removed,
          // so a parallel upload that fits is not refused in the meantime.
          release();
          throw error;
        }
        held += bytes;
        this.#inFlight.set(teamId, (this.#inFlight.get(teamId) ?? 0) + bytes);
      },
      release,
    };
  }

  /** After any write of the team's assets: the next check reads the stored usage again. */
  changed(teamId: string): void {
    this.#stored.delete(teamId);
  }

  #storedBytes(teamId: string): number {
    let bytes = this.#stored.get(teamId);
    if (bytes === undefined) {
      bytes = storedAssetBytes(this.#db, teamId);
      this.#stored.set(teamId, bytes);
    }
    return bytes;
  }
}
