/**
 * Document caps and usage (docs/adr/0006-library-and-document-surfaces.md): a team's
 * `GET /v1/billing`, and the owner's `GET`/`PUT /v1/node/docs/billing` (the owner API). A node with
 * no document caps is `active`; with some it is `free` and creates and appends beyond them are
 * refused (402).
 */
import { z } from 'zod';

export const Tier = z.enum(['active', 'free']);
export type Tier = z.output<typeof Tier>;

export const Caps = z.object({
  max_documents: z.number().int().nullable(),
  max_versions_per_doc: z.number().int().nullable(),
  /** Bytes a team's assets may take; always a number (never unlimited), 2 GiB unless the owner sets another. */
  max_asset_bytes: z.number().int(),
});
export type Caps = z.output<typeof Caps>;

const cap = z.number().int().min(0).max(1_000_000_000).nullable();

/** Up to 1 TiB; left out, the default quota. */
const quota = z
  .number()
  .int()
  .min(0)
  .max(2 ** 40)
  .optional();

/** `PUT /v1/node/docs/billing` (owner API). */
export const CapsBody = z.strictObject({ caps: z.strictObject({ max_documents: cap, max_versions_per_doc: cap, max_asset_bytes: quota }) });
export type CapsInput = z.output<typeof CapsBody>;

/** `GET`/`PUT /v1/node/docs/billing`: the tier and the caps. */
export const BillingSettings = z.object({ tier: Tier, caps: Caps });
export type BillingSettings = z.output<typeof BillingSettings>;

/** `GET /v1/billing`: the tier, the caps and the team's usage. */
export const Billing = z.object({
  team_id: z.string(),
  tier: Tier,
  caps: Caps,
  /** `asset_bytes`: what the team's ready images and videos take (the quota counts it). */
  usage: z.object({ documents: z.number().int(), max_versions_per_doc: z.number().int(), asset_bytes: z.number().int() }),
});
export type Billing = z.output<typeof Billing>;
