/**
 * How the candidates of every kind become one ordered list: pure, so the ordering rules are read
 * and tested in one place.
 *
 * Relevance is FTS5's bm25 (negated: higher is better), lowered by age (a month-old match counts
 * half as much as today's, a year-old one about an eighth) and halved for an older document
 * version. A document shows once: its current version when it matches, else its newest matching
 * older version.
 */
import type { SearchKind } from '../../contract/core/search.ts';

export interface Candidate {
  kind: SearchKind;
  /** The row's id in its kind (a message's, a chat message's, an index entry's). */
  id: number;
  /** bm25 as FTS5 gives it: negative, lower is better. */
  bm25: number;
  created_at: string;
  /** Documents: which document and version, and whether it is the current one. */
  document?: { documentId: string; version: number; currentVersion: number; current: boolean };
  /** Profiles and blueprints: whose ('' for the catalog) and which. */
  library?: { teamId: string; ref: string };
}

export interface Ranked extends Candidate {
  score: number;
}

const DAY_MS = 86_400_000;
/** The age at which a match counts half. */
const HALF_LIFE_DAYS = 30;
const OLDER_VERSION_FACTOR = 0.5;

export function relevance(candidate: Candidate, nowMs: number): number {
  const ageDays = Math.max(0, (nowMs - Date.parse(candidate.created_at)) / DAY_MS);
  const recency = 1 / (1 + ageDays / HALF_LIFE_DAYS);
  const version = candidate.document !== undefined && !candidate.document.current ? OLDER_VERSION_FACTOR : 1;
  return -candidate.bm25 * recency * version;
}

/** One hit per document: the current version if it matched, else the newest older one that did. */
export function oneVersionPerDocument(candidates: readonly Candidate[]): Candidate[] {
  const best = new Map<string, Candidate>();
  for (const candidate of candidates) {
    if (candidate.document === undefined) continue;
    const held = best.get(candidate.document.documentId);
    const better =
      held === undefined ||
      (candidate.document.current && !held.document!.current) ||
      (candidate.document.current === held.document!.current && candidate.document.version > held.document!.version);
    if (better) best.set(candidate.document.documentId, candidate);
  }
  return candidates.filter((c) => c.document === undefined || best.get(c.document.documentId) === c);
}

/** Every kind's candidates in one list, best first (`relevance`) or newest first (`recent`). */
export function rank(candidates: readonly Candidate[], sort: 'relevance' | 'recent', nowMs: number): Ranked[] {
  const scored = oneVersionPerDocument(candidates).map((c) => ({ ...c, score: relevance(c, nowMs) }));
  const newest = (a: Ranked, b: Ranked) => Date.parse(b.created_at) - Date.parse(a.created_at) || b.id - a.id;
  return scored.sort(sort === 'recent' ? newest : (a, b) => b.score - a.score || newest(a, b));
}
