/**
 * profile.yaml, the manifest of a profile payload (upstream's fields): reading it into typed fields
 * for the service, and writing it back when the library itself changes a profile (merge,
 * proposals).
 *
 * Only the shape is checked here (types, the id and version formats, paths that are valid payload
 * paths); whether the named instructions, skill and artifact files exist is left to the operations
 * that change files (changeset collisions, the merge rebuild), so a profile is never refused for a
 * file it merely mentions. Unknown keys (`scope`, `works_on_main`, ...) are kept in the document.
 *
 * A rewritten profile.yaml is our YAML dump, not PyYAML's, so digests of minted versions will not
 * equal upstream's for the same change; that is fine for a self-custodial node.
 */
import type { JsonValue } from '../../../crypto/canonical-json.ts';
import { invalid } from '../../../errors.ts';
import { MemoCache } from '../../../memo-cache.ts';
import { FieldReader } from './fields.ts';
import { pathProblem } from './paths.ts';
import { payloadFile, type PayloadFile } from './payload.ts';
import { dumpYaml, parseYamlMapping, type YamlMapping } from './yaml-doc.ts';

export const PROFILE_YAML = 'profile.yaml';
export const DEFAULT_INSTRUCTIONS = 'instructions.md';

/** The profile.yaml fields that are assets of their own: digested, proposed and merged one by one. */
export const FIELD_ASSETS = [
  'name',
  'mission',
  'accepted_work',
  'instructions',
  'runtime_assumptions',
  'memory_policy',
  'expected_apps',
  'event_subscriptions',
  'approval_required',
  'artifacts',
  'skills',
] as const;
export type FieldAsset = (typeof FIELD_ASSETS)[number];

/** The fields update-from-source merges one by one; skills and artifacts follow the merged files. */
export const MERGE_FIELDS = [
  'mission',
  'accepted_work',
  'runtime_assumptions',
  'memory_policy',
  'expected_apps',
  'event_subscriptions',
  'approval_required',
] as const;

export interface ResourceEntry {
  path: string;
  kind: string;
}

export interface ProfileManifest {
  id: string;
  version: string;
  name: string | null;
  mission: string | null;
  accepted_work: JsonValue[];
  runtime_assumptions: JsonValue[];
  memory_policy: { [key: string]: JsonValue } | null;
  expected_apps: JsonValue[];
  event_subscriptions: JsonValue[];
  approval_required: JsonValue[];
  /** The instructions file's path, `instructions.md` unless profile.yaml names another. */
  instructions: string;
  skills: ResourceEntry[];
  artifacts: ResourceEntry[];
}

export function isFieldAsset(value: string): value is FieldAsset {
  return (FIELD_ASSETS as readonly string[]).includes(value);
}

/** The field's value in the document, or undefined when its key is absent. */
export function fieldValue(document: YamlMapping, field: FieldAsset): JsonValue | undefined {
  return Object.hasOwn(document, field) ? document[field] : undefined;
}

function readResources(reader: FieldReader, field: 'skills' | 'artifacts', defaultKind: string): ResourceEntry[] {
  const out: ResourceEntry[] = [];
  reader.list(field).forEach((entry, i) => {
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
      reader.fail([field, i], `each ${field} entry must be a mapping with a path`, 'dict_type');
      return;
    }
    const { path, kind } = entry;
    if (typeof path !== 'string') {
      reader.fail([field, i, 'path'], `${field}[].path must be a string`, path === undefined ? 'missing' : 'string_type');
      return;
    }
    const problem = pathProblem(path);
    if (problem) reader.fail([field, i, 'path'], problem);
    if (kind !== undefined && kind !== null && typeof kind !== 'string') reader.fail([field, i, 'kind'], `${field}[].kind must be a string`, 'string_type');
    out.push({ path, kind: typeof kind === 'string' ? kind : defaultKind });
  });
  return out;
}

/**
 * Parses and checks profile.yaml (mandatory) of a profile payload. 422 issues are located at
 * `[...loc, 'profile.yaml', field]`.
 */
export function readProfile(files: readonly PayloadFile[], loc: (string | number)[] = []): ProfileRead {
  const here = [...loc, PROFILE_YAML];
  const file = files.find((f) => f.path === PROFILE_YAML);
  if (!file) throw invalid('SVC_ERR_MANIFEST_INVALID', [{ loc: here, msg: 'profile.yaml is required', type: 'missing' }]);
  // Parsing YAML dominates merges and summaries, and one profile.yaml is read many times over;
  // the text itself is the key, and a failed read is never kept.
  return parsed.get(file.content_utf8, () => deepFreeze(parseProfile(file.content_utf8, here)));
}

/** A parse shared through the cache: frozen, so callers copy before they change anything. */
export interface ProfileRead {
  manifest: ProfileManifest;
  document: YamlMapping;
}

const parsed = new MemoCache<ProfileRead>(256);

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

function parseProfile(text: string, here: (string | number)[]): ProfileRead {
  return readDocument(parseYamlMapping(text, here), here);
}

/** The manifest of a profile.yaml mapping, with every field checked (one 422 listing all issues). */
function readDocument(document: YamlMapping, here: (string | number)[]): ProfileRead {
  const reader = new FieldReader(document, here);

  const id = reader.ref('id');
  const version = reader.version('version');
  const instructions = reader.string('instructions') ?? DEFAULT_INSTRUCTIONS;
  const instructionsProblem = pathProblem(instructions);
  if (instructionsProblem) reader.fail(['instructions'], instructionsProblem);

  const manifest: ProfileManifest = {
    id,
    version,
    name: reader.string('name'),
    mission: reader.string('mission'),
    accepted_work: reader.list('accepted_work'),
    runtime_assumptions: reader.list('runtime_assumptions'),
    memory_policy: reader.map('memory_policy'),
    expected_apps: reader.list('expected_apps'),
    event_subscriptions: reader.list('event_subscriptions'),
    approval_required: reader.list('approval_required'),
    instructions,
    skills: readResources(reader, 'skills', 'skill'),
    artifacts: readResources(reader, 'artifacts', 'artifact'),
  };
  if (reader.issues.length > 0) throw invalid('SVC_ERR_MANIFEST_INVALID', reader.issues);
  return { manifest, document };
}

/** profile.yaml text for a document: key order as given, block style, no folding. */
export function writeProfileYaml(document: YamlMapping): string {
  return dumpYaml(document);
}

/**
 * profile.yaml for a rebuilt document (a merge, an approved changeset), checked as readProfile
 * would check it. The dump reads back to the same document, so that read is remembered for the
 * text instead of parsing it again: YAML parsing is most of a merge's cost.
 */
export function writeProfileFile(document: YamlMapping, loc: (string | number)[] = []): PayloadFile {
  const read = deepFreeze(readDocument(structuredClone(document), [...loc, PROFILE_YAML]));
  const text = dumpYaml(read.document);
  parsed.get(text, () => read);
  return payloadFile(PROFILE_YAML, text);
}
