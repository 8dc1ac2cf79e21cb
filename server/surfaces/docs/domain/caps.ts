/**
 * Billing caps for documents (research B8, C5; DESIGN §5). A self-custodial node is `active` with
 * no caps unless its owner configures some; then it reports `free` and the free-tier 402 path
 * applies to creates and appends. Reads are never capped and nothing is ever deleted.
 */
import type { DetailObject } from '../../../errors.ts';

export interface Caps {
  max_documents: number | null;
  max_versions_per_doc: number | null;
}

export type Tier = 'active' | 'free';

export const NO_CAPS: Readonly<Caps> = Object.freeze({ max_documents: null, max_versions_per_doc: null });

export const tierOf = (caps: Caps): Tier => (caps.max_documents === null && caps.max_versions_per_doc === null ? 'active' : 'free');

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
export function checkCreate(caps: Caps, documents: number): CapRefusal | null {
  if (caps.max_documents !== null && documents >= caps.max_documents) return refusal('documents', documents, caps.max_documents);
  if (caps.max_versions_per_doc !== null && caps.max_versions_per_doc < 1) return refusal('versions_per_doc', 0, caps.max_versions_per_doc);
  return null;
}

/** Appending a version to a document that has `versions`. */
export function checkAppend(caps: Caps, versions: number): CapRefusal | null {
  if (caps.max_versions_per_doc !== null && versions >= caps.max_versions_per_doc) return refusal('versions_per_doc', versions, caps.max_versions_per_doc);
  return null;
}
