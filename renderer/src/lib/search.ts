/**
 * What every search place shares (the command palette, and the fields of Mail, Documents and
 * Shelf): the guard that lets only the newest question's answer through, hits grouped by kind,
 * where a hit opens (a route its view honours), and the few words of context under it. Pure;
 * tested in search.test.ts. The fetching itself: composables/useSearch.ts.
 */
import type { SearchHit, SearchKind } from '../api/search.ts';

// ------------------------------------------------------------------ newest answer only

/**
 * Answers arrive in any order; only the newest question's may be shown, so the results never
 * flicker back to an older query. `begin()` before asking, then show the answer only while the
 * returned check says it is still the newest; `cancel()` makes every answer on its way moot.
 */
export interface LatestGate {
  begin(): () => boolean;
  cancel(): void;
}

export function latestOnly(): LatestGate {
  let newest = 0;
  return {
    begin() {
      const mine = ++newest;
      return () => mine === newest;
    },
    cancel() {
      newest++;
    },
  };
}

// ------------------------------------------------------------------ grouping

/** Each kind's heading, in the order the groups are shown (the Record names every kind: a new one fails to compile here). */
const KIND_GROUPS: Record<SearchKind, { label: string; order: number }> = {
  mail: { label: 'Mail', order: 0 },
  chat: { label: 'Chat', order: 1 },
  document: { label: 'Documents', order: 2 },
  profile: { label: 'Profiles', order: 3 },
  blueprint: { label: 'Blueprints', order: 4 },
};

export function kindLabel(kind: SearchKind): string {
  return KIND_GROUPS[kind].label;
}

export interface HitGroup {
  kind: SearchKind;
  label: string;
  hits: SearchHit[];
}

/** The hits by kind (Mail, Chat, Documents, Profiles, Blueprints), each group in the node's order (best first). */
export function groupHits(hits: readonly SearchHit[]): HitGroup[] {
  const groups = new Map<SearchKind, HitGroup>();
  for (const hit of hits) {
    let group = groups.get(hit.kind);
    if (group === undefined) {
      group = { kind: hit.kind, label: KIND_GROUPS[hit.kind].label, hits: [] };
      groups.set(hit.kind, group);
    }
    group.hits.push(hit);
  }
  return [...groups.values()].sort((a, b) => KIND_GROUPS[a.kind].order - KIND_GROUPS[b.kind].order);
}

/** A key no two hits of one answer share (the same mail is in the sender's Sent and the recipient's inbox). */
export function hitKey(hit: SearchHit): string {
  switch (hit.kind) {
    case 'mail':
    case 'chat':
      return `${hit.kind}:${hit.agent_id}:${hit.message_id}`;
    case 'document':
      return `document:${hit.team_id}:${hit.slug}:${hit.version}`;
    case 'profile':
      return `profile:${hit.team_id}:${hit.profile_ref}`;
    case 'blueprint':
      return `blueprint:${hit.blueprint_ref}`;
  }
}

// ------------------------------------------------------------------ where a hit opens

/** A route as the router takes it: its view reads the query on load and on change, so such links work anywhere. */
export interface HitRoute {
  path: string;
  query: Record<string, string>;
}

/**
 * Where a hit opens, in its own view: mail as its identity, in its folder, the message open; a
 * chat as its identity with the session open; a document in its team (at the version found when
 * that is an older one); a profile on its team's shelf; a blueprint in the Shelf's catalog.
 */
export function hitRoute(hit: SearchHit): HitRoute {
  switch (hit.kind) {
    case 'mail':
      return { path: '/mail', query: { identity: hit.agent_id, message: hit.message_id, folder: hit.folder } };
    case 'chat':
      return { path: '/chat', query: { identity: hit.agent_id, session: hit.session_id } };
    case 'document':
      return { path: '/documents', query: { team: hit.team_id, doc: hit.slug, ...(hit.current ? {} : { version: String(hit.version) }) } };
    case 'profile':
      return { path: '/shelf', query: { team: hit.team_id, profile: hit.profile_ref } };
    case 'blueprint':
      return { path: '/shelf', query: { blueprint: hit.blueprint_ref } };
  }
}

// ------------------------------------------------------------------ context

const FOLDER_WORDS = { inbox: 'Inbox', archive: 'Archive', sent: 'Sent' } as const;

/**
 * The few words under a hit that say which one it is: who wrote to whom and where it is (mail),
 * who said it (chat), the team and version (documents: "older version" for one that is not
 * current), the team and id (profiles: the id unless it is the title), the id (blueprints).
 * `teamName` names a team by its id.
 */
export function hitContext(hit: SearchHit, teamName: (teamId: string) => string = (id) => id): string[] {
  switch (hit.kind) {
    case 'mail':
      return [`${hit.from} → ${hit.to}`, FOLDER_WORDS[hit.folder], ...(hit.unread ? ['unread'] : [])];
    case 'chat':
      return ['Chat', ...(hit.from !== hit.title ? [hit.from] : [])];
    case 'document':
      return [teamName(hit.team_id), `v${hit.version}`, ...(hit.current ? [] : ['older version'])];
    case 'profile':
      return [teamName(hit.team_id), ...(hit.profile_ref !== hit.title ? [hit.profile_ref] : [])];
    case 'blueprint':
      return [hit.blueprint_ref];
  }
}

/** The index still reads what existed before it: "Indexing older items… 1,200 of 5,000". */
export function indexingNote(index: { complete: boolean; indexed: number; total: number } | null): string | null {
  if (index === null || index.complete) return null;
  return `Indexing older items… ${index.indexed.toLocaleString()} of ${index.total.toLocaleString()}`;
}
