/**
 * The node's document caps (research B8, C5): none by default; the owner can set them
 * (`PUT /v1/node/docs/billing`), and they are kept in node_settings. Read on every capped write
 * (one primary-key lookup), so every service instance sees the owner's change at once.
 */
import type { Db } from '../../context.ts';
import { NO_CAPS, tierOf, type Caps, type Tier } from './domain/caps.ts';

const SETTING = 'docs.billing_caps';

export interface BillingView {
  team_id: string;
  tier: Tier;
  caps: Caps;
  usage: { documents: number; max_versions_per_doc: number };
}

export class DocsBilling {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  caps(): Caps {
    const value = this.#db.prepare(`SELECT value FROM node_settings WHERE key = ?`).pluck().get(SETTING) as string | undefined;
    if (value === undefined) return { ...NO_CAPS };
    const parsed = JSON.parse(value) as Partial<Caps>;
    return { max_documents: parsed.max_documents ?? null, max_versions_per_doc: parsed.max_versions_per_doc ?? null };
  }

  setCaps(caps: Caps): { tier: Tier; caps: Caps } {
    const value = JSON.stringify({ max_documents: caps.max_documents, max_versions_per_doc: caps.max_versions_per_doc });
    this.#db.prepare(`INSERT INTO node_settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`).run(SETTING, value);
    return this.settings();
  }

  settings(): { tier: Tier; caps: Caps } {
    const caps = this.caps();
    return { tier: tierOf(caps), caps };
  }

  /** GET /v1/billing: the tier, the caps and the team's usage. */
  report(teamId: string): BillingView {
    const caps = this.caps();
    const usage = this.#db
      .prepare(`SELECT count(*) AS documents, coalesce(max(current_version), 0) AS max_versions_per_doc FROM documents WHERE team_id = ?`)
      .get(teamId) as BillingView['usage'];
    return { team_id: teamId, tier: tierOf(caps), caps, usage };
  }
}
