/**
 * The node's document caps (research B8, C5): none by default; the owner can set them
 * (`PUT /v1/node/docs/billing`), and they are kept in node_settings. Read on every capped write
 * (one primary-key lookup), so every service instance sees the owner's change at once. The same
 * setting holds the per-team asset storage quota (domain/caps.ts), 2 GiB unless set.
 */
import type { Billing, BillingSettings, CapsInput } from '../../../contract/docs/billing.ts';
import type { Db } from '../../context.ts';
import { NO_CAPS, tierOf, type Caps } from './domain/caps.ts';

const SETTING = 'docs.billing_caps';

export class DocsBilling {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  caps(): Caps {
    const value = this.#db.prepare(`SELECT value FROM node_settings WHERE key = ?`).pluck().get(SETTING) as string | undefined;
    if (value === undefined) return { ...NO_CAPS };
    const parsed = JSON.parse(value) as Partial<Caps>;
    return {
      max_documents: parsed.max_documents ?? null,
      max_versions_per_doc: parsed.max_versions_per_doc ?? null,
      max_asset_bytes: parsed.max_asset_bytes ?? NO_CAPS.max_asset_bytes,
    };
  }

  /** Replaces the caps; a quota left out is the default one. */
  setCaps(caps: CapsInput['caps']): BillingSettings {
    const value = JSON.stringify({
      max_documents: caps.max_documents,
      max_versions_per_doc: caps.max_versions_per_doc,
      max_asset_bytes: caps.max_asset_bytes ?? NO_CAPS.max_asset_bytes,
    });
    this.#db.prepare(`INSERT INTO node_settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`).run(SETTING, value);
    return this.settings();
  }

  settings(): BillingSettings {
    const caps = this.caps();
    return { tier: tierOf(caps), caps };
  }

  /** GET /v1/billing: the tier, the caps and the team's usage. */
  report(teamId: string): Billing {
    const caps = this.caps();
    const documents = this.#db
      .prepare(`SELECT count(*) AS documents, coalesce(max(current_version), 0) AS max_versions_per_doc FROM documents WHERE team_id = ?`)
      .get(teamId) as { documents: number; max_versions_per_doc: number };
    return { team_id: teamId, tier: tierOf(caps), caps, usage: { ...documents, asset_bytes: storedAssetBytes(this.#db, teamId) } };
  }
}

/** Bytes of the team's ready assets (pending uploads are not stored yet). */
export function storedAssetBytes(db: Db, teamId: string): number {
  return db.prepare(`SELECT coalesce(sum(bytes), 0) FROM docs_assets WHERE team_id = ? AND status = 'ready'`).pluck().get(teamId) as number;
}
