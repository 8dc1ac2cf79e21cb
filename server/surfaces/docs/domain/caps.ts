/**
 * Billing caps for documents (DESIGN §5; docs/adr/0006-library-and-document-surfaces.md). A
 * self-custodial node is `active` with no caps unless its owner configures some; then it reports
 * `free` and the free-tier 402 path applies to creates and appends. Reads are never capped and
 * nothing is ever deleted.
 *
 * Asset storage is different: every team has a quota on the bytes its images and
 * videos take, 2 GiB unless the owner sets another, whatever the tier, because a node's disk is
 * finite and uploads arrive from outside. It does not make the tier `free`.
 */
import type { Caps, Tier } from '../../../../contract/docs/billing.ts';
import type { DetailObject } from '../../../errors.ts';

/** `max_asset_bytes` is always a number (never unlimited). */
export type { Caps, Tier };

export const DEFAULT_MAX_ASSET_BYTES = 2 * 1024 * 1024 * 1024;

export const NO_CAPS: Readonly<Caps> = Object.freeze({ max_documents: null, max_versions_per_doc: null, max_asset_bytes: DEFAULT_MAX_ASSET_BYTES });

/** The document caps alone decide the tier. */
export type DocumentCaps = Pick<Caps, 'max_documents' | 'max_versions_per_doc'>;

export const tierOf = (caps: DocumentCaps): Tier => (caps.max_documents === null && caps.max_versions_per_doc === null ? 'active' : 'free');

export interface CapRefusal extends DetailObject {
  code: 'free_tier_limit_exceeded';
  limit: 'documents' | 'versions_per_doc';
  current: number;
  max: number;
  subscriptions_available: false;
  message: string;
}

function refusal(limit: CapRefusal['limit'], current: number, max: number): CapRefusal {
  const what = limit === 'documents' ? `${max} document${max === 1 ? '' : 's'} per team` : `${max} version${max === 1 ? '' : 's'} per document`;
  return {
    code: 'free_tier_limit_exceeded',
    limit,
    current,
    max,
    subscriptions_available: false,
    message: `The free tier allows ${what} (currently ${current}); nothing was changed`,
  };
}

/** Creating one more document (with its version 1) when the team has `documents`. */
export function checkCreate(caps: DocumentCaps, documents: number): CapRefusal | null {
  if (caps.max_documents !== null && documents >= caps.max_documents) return refusal('documents', documents, caps.max_documents);
  if (caps.max_versions_per_doc !== null && caps.max_versions_per_doc < 1) return refusal('versions_per_doc', 0, caps.max_versions_per_doc);
  return null;
}

/** Appending a version to a document that has `versions`. */
export function checkAppend(caps: DocumentCaps, versions: number): CapRefusal | null {
  if (caps.max_versions_per_doc !== null && versions >= caps.max_versions_per_doc) return refusal('versions_per_doc', versions, caps.max_versions_per_doc);
  return null;
}

export interface StorageRefusal extends DetailObject {
  code: 'storage_quota_exceeded';
  limit: 'asset_bytes';
  /** Bytes the team's assets take, counting uploads in progress. */
  current: number;
  max: number;
  /** Bytes of the asset that did not fit (so far, for a streamed upload). */
  requested: number;
  subscriptions_available: false;
  message: string;
}

const mib = (bytes: number): string => `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;

/** Storing `incoming` more bytes for a team whose assets take `used` of at most `max`. */
export function checkStorage(max: number, used: number, incoming: number): StorageRefusal | null {
  if (used + incoming <= max) return null;
  return {
    code: 'storage_quota_exceeded',
    limit: 'asset_bytes',
    current: used,
    max,
    requested: incoming,
    subscriptions_available: false,
    message: `The team's assets may take ${mib(max)} and take ${mib(used)}; ${mib(incoming)} more does not fit, so nothing was stored`,
  };
}
