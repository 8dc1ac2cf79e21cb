/**
 * The node's document caps, one row of `node_settings` (key `docs.billing_caps`): JSON of the
 * three caps. The only module that reads or writes that key.
 */
import type { Db } from '../../../context.ts';
import { NO_CAPS, type Caps } from '../domain/caps.ts';

const SETTING = 'docs.billing_caps';

/** The stored caps; a cap the setting leaves out (written before that cap existed) is the default one. */
export function toCaps(value: string): Caps {
  const parsed = JSON.parse(value) as Partial<Caps>;
  return {
    max_documents: parsed.max_documents ?? null,
    max_versions_per_doc: parsed.max_versions_per_doc ?? null,
    max_asset_bytes: parsed.max_asset_bytes ?? NO_CAPS.max_asset_bytes,
  };
}

/** The caps the owner set, or undefined when they never did. */
export function findBillingCaps(db: Db): Caps | undefined {
  const value = db.prepare(`SELECT value FROM node_settings WHERE key = ?`).pluck().get(SETTING) as string | undefined;
  return value === undefined ? undefined : toCaps(value);
}

export function saveBillingCaps(db: Db, caps: Caps): void {
  const value = JSON.stringify({ max_documents: caps.max_documents, max_versions_per_doc: caps.max_versions_per_doc, max_asset_bytes: caps.max_asset_bytes });
  db.prepare(`INSERT INTO node_settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`).run(SETTING, value);
}
