/**
 * The node's document caps (docs/adr/0006-library-and-document-surfaces.md): none by default; the
 * owner can set them (`PUT /v1/node/docs/billing`), and they are kept in node_settings. Read on
 * every capped write (one primary-key lookup), so every service instance sees the owner's change at
 * once. The same setting holds the per-team asset storage quota (domain/caps.ts), 2 GiB unless set.
 */
import type { Billing, BillingSettings, CapsInput } from '../../../../contract/docs/billing.ts';
import type { Db } from '../../../context.ts';
import { NO_CAPS, tierOf, type Caps } from '../domain/caps.ts';
import { storedAssetBytes } from '../assets/store.ts';
import { findBillingCaps, saveBillingCaps } from './store.ts';
import { documentUsage } from '../documents/store/documents.ts';

export class DocsBilling {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  caps(): Caps {
    return findBillingCaps(this.#db) ?? { ...NO_CAPS };
  }

  /** Replaces the caps; a quota left out is the default one. */
  setCaps(caps: CapsInput['caps']): BillingSettings {
    saveBillingCaps(this.#db, {
      max_documents: caps.max_documents,
      max_versions_per_doc: caps.max_versions_per_doc,
      max_asset_bytes: caps.max_asset_bytes ?? NO_CAPS.max_asset_bytes,
    });
    return this.settings();
  }

  settings(): BillingSettings {
    const caps = this.caps();
    return { tier: tierOf(caps), caps };
  }

  /** GET /v1/billing: the tier, the caps and the team's usage. */
  report(teamId: string): Billing {
    const caps = this.caps();
    return { team_id: teamId, tier: tierOf(caps), caps, usage: { ...documentUsage(this.#db, teamId), asset_bytes: storedAssetBytes(this.#db, teamId) } };
  }
}
