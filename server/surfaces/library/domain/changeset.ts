/**
 * Profile proposals are asset-scoped changesets, as upstream's
 * (docs/adr/0006-library-and-document-surfaces.md): each asset is one file (`instructions.md`,
 * `skills/x/SKILL.md`) or one profile.yaml field (`profile.yaml#mission`), set or deleted against
 * the base digest the proposer saw. Checking them per asset is what lets non-overlapping proposals
 * compose.
 *
 * The same code runs at submission, as a dry run against the current shelf version (ours:
 * invalid or colliding changes never reach review), and again at approve, where the bases are
 * rechecked. Shape errors are 422; collisions and stale or missing bases are 409.
 */
import type { Changeset as WireChangeset, ProposalAsset } from '../../../../contract/library/proposals.ts';
import type { JsonValue } from '../../../crypto/canonical-json.ts';
import { conflict, invalid, type ValidationIssue } from '../../../errors.ts';
import { CHANGESET_SCHEMA, proposalAssetDigests } from './digest.ts';
import { toJsonValue } from './json-value.ts';
import { pathProblem } from './paths.ts';
import { checkPayloadFiles, contentProblem, type PayloadFile } from './payload.ts';
import { DEFAULT_INSTRUCTIONS, FIELD_ASSETS, isFieldAsset, PROFILE_YAML, readProfile, writeProfileYaml } from './profile-yaml.ts';
import type { YamlMapping } from './yaml-doc.ts';

/** A checked asset (contract/library/proposals.ts): its content is JSON canonical JSON can hash. */
export type ChangeAsset = Omit<ProposalAsset, 'content'> & { content?: JsonValue };

/** A checked changeset, the `content` of a profile proposal. */
export type Changeset = Omit<WireChangeset, 'assets'> & { assets: ChangeAsset[] };

export const MAX_ASSETS = 200;
const FIELD_PREFIX = `${PROFILE_YAML}#`;
const ASSET_KEYS: readonly string[] = ['path', 'content_utf8', 'content', 'delete', 'base_asset_digest'];
const DIGEST = /^sha256:[0-9a-f]{64}$/;
const LOC = ['body', 'content'];

type Loc = (string | number)[];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The field a `profile.yaml#<field>` path names, or null for a file path. */
function fieldOf(path: string): string | null {
  return path.startsWith(FIELD_PREFIX) ? path.slice(FIELD_PREFIX.length) : null;
}

function parseAsset(raw: unknown, loc: Loc, issues: ValidationIssue[]): ChangeAsset | null {
  const fail = (at: Loc, msg: string, type = 'value_error') => issues.push({ loc: [...loc, ...at], msg, type });
  const before = issues.length;
  if (!isObject(raw)) {
    fail([], 'each asset must be an object', 'dict_type');
    return null;
  }
  for (const key of Object.keys(raw)) if (!ASSET_KEYS.includes(key)) fail([key], `unknown field ${key}`, 'extra_forbidden');

  const { path, content_utf8: text, content, delete: del, base_asset_digest: base } = raw;
  const hasText = Object.hasOwn(raw, 'content_utf8');
  const hasContent = Object.hasOwn(raw, 'content');
  if (del !== undefined && typeof del !== 'boolean') fail(['delete'], 'delete must be true or false', 'bool_type');
  const deleting = del === true;
  if (deleting && (hasText || hasContent)) fail(['delete'], 'delete cannot be combined with content or content_utf8');
  if (base !== undefined && (typeof base !== 'string' || !DIGEST.test(base))) {
    fail(['base_asset_digest'], 'base_asset_digest must be "sha256:" followed by 64 lowercase hex digits');
  }

  let json: JsonValue | undefined;
  if (typeof path !== 'string' || path === '') {
    fail(['path'], 'path must be a non-empty string', path === undefined ? 'missing' : 'string_type');
  } else if (path === PROFILE_YAML) {
    fail(['path'], 'profile.yaml cannot be replaced whole; change its fields as profile.yaml#<field>');
  } else if (path.startsWith(FIELD_PREFIX)) {
    const field = path.slice(FIELD_PREFIX.length);
    if (!isFieldAsset(field)) fail(['path'], `"${field}" is not a profile.yaml field asset; use one of ${FIELD_ASSETS.join(', ')}`);
    if (hasText) fail(['content_utf8'], 'a profile.yaml field takes content (a JSON value), not content_utf8');
    if (!deleting && !hasContent) fail(['content'], 'a profile.yaml field asset needs content (or delete: true)', 'missing');
    if (hasContent) {
      const converted = toJsonValue(content, [...loc, 'content']);
      issues.push(...converted.issues);
      json = converted.value;
    }
  } else {
    const problem = pathProblem(path);
    if (problem) fail(['path'], problem);
    if (hasContent) fail(['content'], 'a file asset takes content_utf8 (its text), not content');
    if (!deleting && !hasText) fail(['content_utf8'], 'a file asset needs content_utf8 (or delete: true)', 'missing');
    if (hasText && typeof text !== 'string') fail(['content_utf8'], 'content_utf8 must be a string', 'string_type');
    const contentIssue = typeof text === 'string' ? contentProblem(text) : null;
    if (contentIssue) fail(['content_utf8'], contentIssue);
  }
  if (issues.length > before) return null;

  const asset: ChangeAsset = { path: path as string };
  if (typeof text === 'string') asset.content_utf8 = text;
  if (json !== undefined) asset.content = json;
  if (deleting) asset.delete = true;
  if (typeof base === 'string') asset.base_asset_digest = base;
  return asset;
}

/** Checks the shape of a proposal's content; 422 locates every issue under `['body', 'content']`. */
export function parseChangeset(content: unknown): Changeset {
  const issues: ValidationIssue[] = [];
  if (!isObject(content)) throw invalid('SVC_ERR_VALIDATION', [{ loc: LOC, msg: 'content must be a changeset object {schema, assets}', type: 'dict_type' }]);
  for (const key of Object.keys(content)) {
    if (key !== 'schema' && key !== 'assets') issues.push({ loc: [...LOC, key], msg: `unknown field ${key}`, type: 'extra_forbidden' });
  }
  if (content.schema !== CHANGESET_SCHEMA) issues.push({ loc: [...LOC, 'schema'], msg: `schema must be "${CHANGESET_SCHEMA}"`, type: 'literal_error' });
  const raw = content.assets;
  const assets: ChangeAsset[] = [];
  if (!Array.isArray(raw) || raw.length === 0) {
    issues.push({ loc: [...LOC, 'assets'], msg: 'assets must be a non-empty list', type: 'value_error' });
  } else if (raw.length > MAX_ASSETS) {
    issues.push({ loc: [...LOC, 'assets'], msg: `at most ${MAX_ASSETS} assets per changeset (got ${raw.length})`, type: 'value_error' });
  } else {
    raw.forEach((entry, i) => {
      const asset = parseAsset(entry, [...LOC, 'assets', i], issues);
      if (asset) assets.push(asset);
    });
  }
  if (issues.length > 0) throw invalid('SVC_ERR_VALIDATION', issues);
  return { schema: CHANGESET_SCHEMA, assets };
}

/** The paths named by a skills/artifacts value, ignoring malformed entries (readProfile reports those). */
function entryPaths(value: JsonValue | undefined): string[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((e) => (isObject(e) && typeof e.path === 'string' ? [e.path] : []));
}

/** 409 for changes that cannot all hold at once (say, one path twice, or deleting a file profile.yaml names). */
function collisions(changeset: Changeset, before: ReadonlySet<string>, after: ReadonlySet<string>, original: YamlMapping, result: YamlMapping): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const { path } of changeset.assets) {
    if (seen.has(path)) out.push(`${path} is changed more than once`);
    seen.add(path);
  }
  const instructions = result.instructions ?? DEFAULT_INSTRUCTIONS;
  if (changeset.assets.some((a) => a.delete && a.path === instructions)) {
    out.push(`${instructions} cannot be deleted: profile.yaml#instructions names it`);
  }
  // An entry dangles because of this changeset when its file goes away or the entry is new;
  // one that already dangled before is not this proposal's doing.
  for (const field of ['skills', 'artifacts'] as const) {
    const declared = new Set(entryPaths(original[field]));
    for (const path of entryPaths(result[field])) {
      if (!after.has(path) && (before.has(path) || !declared.has(path))) {
        out.push(`profile.yaml#${field} lists ${path}, which will not exist`);
      }
    }
  }
  return out;
}

/** 409 for assets whose base does not match the current version (upstream's stale rule). */
function staleness(changeset: Changeset, current: Record<string, string>): string[] {
  const out: string[] = [];
  for (const asset of changeset.assets) {
    const digest = Object.hasOwn(current, asset.path) ? current[asset.path] : undefined;
    const base = asset.base_asset_digest;
    if (digest === undefined) {
      if (asset.delete) out.push(`${asset.path} cannot be deleted: it does not exist`);
      else if (base !== undefined) out.push(`${asset.path} is stale; it does not exist`);
    } else if (base === undefined) {
      out.push(`${asset.path} already exists; give its current digest as base_asset_digest`);
    } else if (base !== digest) {
      out.push(`${asset.path} is stale: its current digest is ${digest}`);
    }
  }
  return out;
}

/**
 * The files of the version a changeset mints from `files`: collisions, then stale bases (409),
 * then the result must read as a profile with the same id and the minted version (422).
 */
export function applyChangeset(files: readonly PayloadFile[], changeset: Changeset, options: { profileRef: string; version: string }): PayloadFile[] {
  const { document: original } = readProfile(files);
  const document: YamlMapping = { ...original };
  const byPath = new Map<string, { path: string; content_utf8: string }>(files.map((f) => [f.path, f]));
  for (const asset of changeset.assets) {
    const field = fieldOf(asset.path);
    if (field !== null) {
      if (asset.delete) delete document[field];
      else document[field] = asset.content ?? null;
    } else if (asset.delete) {
      byPath.delete(asset.path);
    } else {
      byPath.set(asset.path, { path: asset.path, content_utf8: asset.content_utf8 ?? '' });
    }
  }

  const colliding = collisions(changeset, new Set(files.map((f) => f.path)), new Set(byPath.keys()), original, document);
  if (colliding.length > 0) throw conflict('SVC_ERR_PROPOSAL_CHANGES_COLLIDE', `Colliding changes: ${colliding.join('; ')}`);
  const stale = staleness(changeset, proposalAssetDigests(files));
  if (stale.length > 0) throw conflict('SVC_ERR_PROPOSAL_BASE_STALE', stale.join('; '));

  document.version = options.version;
  byPath.set(PROFILE_YAML, { path: PROFILE_YAML, content_utf8: writeProfileYaml(document) });
  const result = checkPayloadFiles([...byPath.values()], LOC);
  const { manifest } = readProfile(result, LOC);
  if (manifest.id !== options.profileRef)
    throw invalid('SVC_ERR_PROPOSAL_ID_OR_VERSION_CHANGED', `The changed profile.yaml id "${manifest.id}" must stay ${options.profileRef}`);
  if (manifest.version !== options.version)
    throw invalid('SVC_ERR_PROPOSAL_ID_OR_VERSION_CHANGED', `The changed profile.yaml version must be ${options.version}`);
  return result;
}
