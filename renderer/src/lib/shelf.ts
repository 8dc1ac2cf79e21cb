/**
 * Pure helpers for the Shelf view: version numbers, refs, words for the library's values, proposal
 * changesets, and the materialized home as a tree. No DOM, no requests; tested in
 * shelf.test.ts.
 */
import { isRef, nextPatchVersion, notNewerProblem, readTags, tagCountProblem, versionProblem, type TagReading } from '../../../contract/library-rules.ts';
import type { Binding, BlueprintSummary, HomeFile, Proposal, ProposalAsset } from '../api/library.ts';
import type { BadgeLabel } from './labels.ts';

// The node's own rules (contract/), so a form never accepts what the node refuses.
export { nextPatchVersion, versionProblem } from '../../../contract/library-rules.ts';

export const PROFILE_YAML = 'profile.yaml';
const FIELD_PREFIX = `${PROFILE_YAML}#`;

/** The runtimes materialize knows how to lay out (claude-code adds CLAUDE.md and skill symlinks). */
export const RUNTIME_KINDS = [
  { id: 'claude-code', label: 'Claude Code', hint: 'AGENTS.md, with CLAUDE.md and .claude/skills linked to it' },
  { id: 'codex', label: 'Codex', hint: 'AGENTS.md and the skills, no links' },
  { id: 'pi', label: 'Pi', hint: 'AGENTS.md and the skills, no links' },
] as const;

export const MATERIALIZE_TARGETS = [
  { id: 'local', label: 'Local', hint: 'The agent runs on a machine of yours; you write these files into its home.' },
  { id: 'custodial-mcp', label: 'Custodial (MCP)', hint: 'The node keeps the home for an agent that reaches it over MCP.' },
] as const;

/** The node's words as a sentence: `tag must be…` → `Tag must be….` */
const sentence = (words: string, tail = ''): string => `${words.charAt(0).toUpperCase()}${words.slice(1)}${tail}.`;

// ------------------------------------------------------------------ versions

const DIGITS = /^[0-9]+$/;

/** A new blueprint's first version. */
export const FIRST_BLUEPRINT_VERSION = '1.0.0';

/**
 * The next minor version, for publishing into a blueprint again: `1.0.0`→`1.1.0`, `1.4.2`→`1.5.0`,
 * `2.0.0-rc.1`→`2.1.0` (prerelease and build dropped), `1.2`→`1.3`, `1`→`1.1`. A version whose minor
 * segment is not a number gets the next patch version instead, which is still newer.
 */
export function nextMinorVersion(version: string): string {
  const release = version.split(/[-+]/, 1)[0] ?? '';
  const segments = release.split('.');
  if (!segments.every((s) => DIGITS.test(s))) return nextPatchVersion(version);
  if (segments.length === 1) return `${release}.1`;
  return segments.map((s, i) => (i === 1 ? (BigInt(s) + 1n).toString() : i > 1 ? '0' : s)).join('.');
}

/**
 * Why a typed version cannot be the next one after `latest` (null: it can), in words: the node's
 * shape rule, then its "newer than the latest" rule. `latest` null: there is none yet.
 */
export function nextVersionProblem(typed: string, latest: string | null): string | null {
  const shape = versionProblem(typed);
  if (shape !== null || latest === null) return shape;
  const order = notNewerProblem(typed.trim(), latest);
  return order === null ? null : sentence(order);
}

// ------------------------------------------------------------------ refs

/** Why `ref` cannot name a profile or blueprint (the node's rule), or null. `example` goes into the messages. */
export function refProblem(ref: string, example: string): string | null {
  const value = ref.trim();
  if (value === '') return `Enter an id, for example ${example}.`;
  if (isRef(value)) return null;
  const hint = isRef(value.toLowerCase()) ? ` (perhaps ${value.toLowerCase()})` : '';
  return `"${value}" cannot be an id${hint}: use lower-case letters, digits, ".", "-" and "_", starting with a letter or digit (at most 128).`;
}

/** An id suggested from a name: "Code Reviewer (v2)" → `code-reviewer-v2`; empty when nothing usable is left. */
export function suggestRef(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[._-]+|[._-]+$/g, '')
    .slice(0, 128)
    .replace(/[._-]+$/, '');
}

// ------------------------------------------------------------------ words

export function versionOriginLabel(origin: string): BadgeLabel {
  switch (origin) {
    case 'import':
      return { text: 'Imported', tone: 'neutral', hint: 'Copied from the public catalog, byte for byte.' };
    case 'created':
      return { text: 'Created', tone: 'neutral', hint: 'Made on this shelf.' };
    case 'version':
      return { text: 'Edited', tone: 'accent', hint: 'Saved as a new version on this shelf.' };
    case 'update-from-source':
      return { text: 'From source', tone: 'ok', hint: 'Minted by "Update from source": upstream changes merged in.' };
    case 'proposal':
      return { text: 'Proposal', tone: 'warn', hint: 'Minted by approving a proposal.' };
    default:
      return { text: origin, tone: 'neutral', hint: '' };
  }
}

export function proposalStatusBadge(status: string): BadgeLabel {
  switch (status) {
    case 'open':
      return { text: 'Open', tone: 'accent', hint: 'Waiting for a decision.' };
    case 'approved':
      return { text: 'Approved', tone: 'ok', hint: 'Approved; it minted a new version.' };
    case 'rejected':
      return { text: 'Rejected', tone: 'danger', hint: 'Rejected; nothing changed.' };
    default:
      return { text: status, tone: 'neutral', hint: '' };
  }
}

/** A merge part (`field:mission`, `file:instructions.md`) in words. */
export function partLabel(part: string): { name: string; kind: string } {
  if (part.startsWith('field:')) return { name: part.slice('field:'.length), kind: 'profile.yaml field' };
  if (part.startsWith('file:')) return { name: part.slice('file:'.length), kind: 'file' };
  return { name: part, kind: 'part' };
}

/** "support.team v1.0.0", or null for a profile made on the shelf. */
export function sourceLabel(pins: { source_blueprint_ref: string | null; source_blueprint_version: string | null }): string | null {
  if (pins.source_blueprint_ref === null) return null;
  return pins.source_blueprint_version === null ? pins.source_blueprint_ref : `${pins.source_blueprint_ref} v${pins.source_blueprint_version}`;
}

/** The name to show for a profile: its name, else its ref. */
export function profileTitle(profile: { name: string | null; profile_ref: string }): string {
  return profile.name?.trim() ? profile.name : profile.profile_ref;
}

// ------------------------------------------------------------------ tags

/** A refused tag in words, with the close tag that would do: `Tag "c++" may only use …; perhaps c.` */
export function tagReadingProblem(reading: TagReading): string | null {
  if (reading.problem === null) return null;
  return sentence(reading.problem, reading.suggestion === null ? '' : `; perhaps ${reading.suggestion}`);
}

/** What a tags field holds as the node will read it: only commas (or new lines) separate tags, so "Code Review" stays one (code-review). */
export interface TagListPreview {
  readings: TagReading[];
  /** The tags to send: accepted, each once, in the order typed. */
  tags: string[];
  /** The first reason the list cannot be sent, in words; null when it can. */
  problem: string | null;
}

export function previewTagList(text: string): TagListPreview {
  const readings = readTags(text.split(/[,\n]/));
  const tags = [...new Set(readings.filter((r) => r.problem === null).map((r) => r.tag))];
  const refused = readings.find((r) => r.problem !== null);
  const tooMany = tagCountProblem(tags.length);
  const problem = refused !== undefined ? tagReadingProblem(refused) : tooMany === null ? null : sentence(tooMany);
  return { readings, tags, problem };
}

/** The blueprints a team owns (it may publish new versions of them and delete them), by name. */
export function ownedBlueprints(blueprints: readonly BlueprintSummary[], teamId: string | null): BlueprintSummary[] {
  if (teamId === null) return [];
  return blueprints.filter((b) => b.owner === teamId).sort((a, b) => a.name.localeCompare(b.name) || a.blueprint_ref.localeCompare(b.blueprint_ref));
}

/** Every tag in the catalog, sorted. */
export function catalogTags(blueprints: readonly BlueprintSummary[]): string[] {
  return [...new Set(blueprints.flatMap((b) => b.tags))].sort();
}

// ------------------------------------------------------------------ shelf

export function bindingsOf(profileRef: string, bindings: readonly Binding[]): Binding[] {
  return bindings.filter((binding) => binding.profile_ref === profileRef);
}

/** "a", "a and b", "a, b and c". */
function listWords(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

function count(n: number, singular: string): string {
  return `${n} ${n === 1 ? singular : `${singular}s`}`;
}

/** What deleting a profile takes with it, in one sentence. */
export function deleteConsequence(profileRef: string, counts: { versions: number; bindings: number; proposals: number }): string {
  const parts = [count(counts.versions, 'version')];
  if (counts.bindings > 0) parts.push(count(counts.bindings, 'binding'));
  if (counts.proposals > 0) parts.push(count(counts.proposals, 'proposal'));
  return `${profileRef} and its ${listWords(parts)} are deleted; this cannot be undone.`;
}

/**
 * Why `path` cannot be added to a version being edited (null: it can): a relative path without
 * empty, "." or ".." parts that the version does not hold yet.
 */
export function newFileProblem(path: string, paths: readonly string[]): string | null {
  if (path === '') return 'Type a path, for example skills/review/SKILL.md.';
  if (path.startsWith('/') || path.split('/').some((s) => s === '' || s === '.' || s === '..')) {
    return 'Use a relative path without "..", for example notes/style.md.';
  }
  return paths.includes(path) ? `${path} is already in this profile.` : null;
}

// ------------------------------------------------------------------ proposals

/** The assets of a profile changeset, or null when the content is not one. */
export function changesetAssets(content: unknown): ProposalAsset[] | null {
  if (typeof content !== 'object' || content === null || Array.isArray(content)) return null;
  const assets = (content as { assets?: unknown }).assets;
  if (!Array.isArray(assets)) return null;
  const out: ProposalAsset[] = [];
  for (const asset of assets) {
    if (typeof asset !== 'object' || asset === null || typeof (asset as { path?: unknown }).path !== 'string') return null;
    out.push(asset as ProposalAsset);
  }
  return out;
}

/** The profile.yaml field an asset path names (`profile.yaml#mission` → mission), or null for a file. */
export function assetField(path: string): string | null {
  return path.startsWith(FIELD_PREFIX) ? path.slice(FIELD_PREFIX.length) : null;
}

export type AssetChange = 'added' | 'changed' | 'deleted';

/** What an asset does to the current version. */
export function assetChange(asset: ProposalAsset, currentDigests: Readonly<Record<string, string>>): AssetChange {
  if (asset.delete === true) return 'deleted';
  return Object.hasOwn(currentDigests, asset.path) ? 'changed' : 'added';
}

/**
 * Why the approval recheck would refuse this asset against the current version (its base is no
 * longer current), or null when it still applies. Mirrors the node's rule, for a warning only.
 */
export function staleReason(asset: ProposalAsset, currentDigests: Readonly<Record<string, string>>): string | null {
  const current = Object.hasOwn(currentDigests, asset.path) ? currentDigests[asset.path] : undefined;
  const base = asset.base_asset_digest;
  if (current === undefined) {
    if (asset.delete) return 'it no longer exists';
    return base === undefined ? null : 'it was removed since the proposal was made';
  }
  if (base === undefined) return 'it was created since the proposal was made';
  return base === current ? null : 'it changed since the proposal was made';
}

/** Open first, then newest first. */
export function sortProposals(proposals: readonly Proposal[]): Proposal[] {
  return [...proposals].sort((a, b) => {
    const open = Number(b.status === 'open') - Number(a.status === 'open');
    return open !== 0 ? open : b.created_at.localeCompare(a.created_at);
  });
}

/** The approval recheck's own rejection (the node rejects a proposal whose bases went stale). */
export function rejectedByRecheck(proposal: Proposal | undefined): boolean {
  return proposal?.status === 'rejected' && (proposal.decision_reason ?? '').startsWith('Rejected by the approval recheck');
}

// ------------------------------------------------------------------ materialized home

export interface TreeRow {
  /** The full path (a directory's path has no trailing slash). */
  path: string;
  name: string;
  depth: number;
  kind: 'dir' | 'file' | 'symlink';
  /** A symlink's target. */
  target?: string;
}

interface Node {
  name: string;
  path: string;
  children: Map<string, Node>;
  file?: HomeFile;
}

/**
 * The home files as a tree, flattened for display: each directory before its entries,
 * directories before files at each level, names in order.
 */
export function homeTree(files: readonly HomeFile[]): TreeRow[] {
  const root: Node = { name: '', path: '', children: new Map() };
  for (const file of files) {
    const parts = file.path.split('/');
    let node = root;
    parts.forEach((part, index) => {
      const path = parts.slice(0, index + 1).join('/');
      let child = node.children.get(part);
      if (child === undefined) {
        child = { name: part, path, children: new Map() };
        node.children.set(part, child);
      }
      if (index === parts.length - 1) child.file = file;
      node = child;
    });
  }
  const rows: TreeRow[] = [];
  const walk = (node: Node, depth: number) => {
    const entries = [...node.children.values()].sort((a, b) => {
      const aDir = a.file === undefined ? 0 : 1;
      const bDir = b.file === undefined ? 0 : 1;
      return aDir - bDir || a.name.localeCompare(b.name);
    });
    for (const entry of entries) {
      if (entry.file === undefined) {
        rows.push({ path: entry.path, name: entry.name, depth, kind: 'dir' });
        walk(entry, depth + 1);
      } else if (entry.file.kind === 'symlink') {
        rows.push({ path: entry.path, name: entry.name, depth, kind: 'symlink', target: entry.file.target });
      } else {
        rows.push({ path: entry.path, name: entry.name, depth, kind: 'file' });
      }
    }
  };
  walk(root, 0);
  return rows;
}

/** Short digest for lists: `sha256:3f2a…9c1d`. */
export function shortDigest(digest: string): string {
  const match = /^sha256:([0-9a-f]+)$/.exec(digest);
  if (match === null) return digest;
  const hex = match[1] as string;
  return hex.length <= 12 ? digest : `sha256:${hex.slice(0, 8)}…${hex.slice(-4)}`;
}
