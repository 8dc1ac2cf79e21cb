/**
 * Blueprint import payloads, in upstream's file layout: blueprint.yaml at the root, one
 * `profiles/<id>/` directory per listed profile, anything else at the root (README.md) kept as is.
 * Reading splits a payload into its manifest and profile-relative profile payloads whose entries
 * are unchanged, so a profile digests the same inside a blueprint and on its own. Building writes
 * the library-generated blueprint.yaml that publish-profile uses, in a form reading accepts.
 */
import type { JsonValue } from '../../../crypto/canonical-json.ts';
import { invalid, ServiceError, type ValidationIssue } from '../../../errors.ts';
import { FieldReader } from './fields.ts';
import { checkPayloadFiles, sortFiles, type PayloadFile } from './payload.ts';
import { PROFILE_YAML, readProfile, type ProfileManifest } from './profile-yaml.ts';
import { dumpYaml, parseYamlMapping, type YamlMapping } from './yaml-doc.ts';

export const BLUEPRINT_YAML = 'blueprint.yaml';
const PROFILES_DIR = 'profiles/';

export interface BlueprintManifest {
  blueprint_ref: string;
  version: string;
  name: string;
  summary: string | null;
  description: string | null;
  /** blueprint.yaml `profiles[]` entries verbatim (id, default_count, min, max, runtime_hints...). */
  recommendations: JsonValue[];
  runtime_hints: JsonValue[];
  expected_apps: JsonValue[];
  first_mission_examples: JsonValue[];
}

export interface BlueprintProfile {
  profile_ref: string;
  /** Profile-relative entries, sorted, content and sha256 as in the blueprint. */
  files: PayloadFile[];
  manifest: ProfileManifest;
}

function isMapping(value: JsonValue | undefined): value is { [key: string]: JsonValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The ids listed in `profiles[]`, in order, with an issue for each bad or repeated entry. */
function listedProfiles(reader: FieldReader, recommendations: JsonValue[]): string[] {
  const ids: string[] = [];
  recommendations.forEach((entry, i) => {
    if (!isMapping(entry)) {
      reader.fail(['profiles', i], 'each profiles entry must be a mapping with an id', 'dict_type');
      return;
    }
    const inner = new FieldReader(entry, []);
    const id = inner.ref('id');
    for (const issue of inner.issues) reader.fail(['profiles', i, ...issue.loc], issue.msg, issue.type);
    if (inner.issues.length > 0) return;
    if (ids.includes(id)) reader.fail(['profiles', i, 'id'], `profile "${id}" is listed twice`);
    else ids.push(id);
  });
  if (recommendations.length === 0) reader.fail(['profiles'], 'profiles must list at least one profile');
  return ids;
}

/** The profile-relative files under `profiles/<id>/`. */
function profileFiles(files: readonly PayloadFile[], id: string): PayloadFile[] {
  const prefix = `${PROFILES_DIR}${id}/`;
  return sortFiles(files.filter((f) => f.path.startsWith(prefix)).map((f) => ({ ...f, path: f.path.slice(prefix.length) })));
}

/**
 * Splits a checked import payload (see checkPayloadFiles) into its manifest and profiles, in
 * blueprint.yaml order. 422 issues are located under `loc`, then the file path.
 */
export function readBlueprintPayload(
  files: readonly PayloadFile[],
  loc: (string | number)[] = ['body', 'files'],
): { manifest: BlueprintManifest; profiles: BlueprintProfile[] } {
  const here = [...loc, BLUEPRINT_YAML];
  const file = files.find((f) => f.path === BLUEPRINT_YAML);
  if (!file) throw invalid('SVC_ERR_MANIFEST_INVALID', [{ loc: here, msg: 'blueprint.yaml is required at the root of the payload', type: 'missing' }]);
  const reader = new FieldReader(parseYamlMapping(file.content_utf8, here), here);

  const recommendations = reader.list('profiles');
  const manifest: BlueprintManifest = {
    blueprint_ref: reader.ref('id'),
    version: reader.version('version'),
    name: reader.required('name', (v) => (v.trim() === '' ? 'name must not be empty' : null)),
    summary: reader.string('summary'),
    description: reader.string('description'),
    recommendations,
    runtime_hints: reader.list('runtime_hints'),
    expected_apps: reader.list('expected_apps'),
    first_mission_examples: reader.list('first_mission_examples'),
  };
  const ids = listedProfiles(reader, recommendations);
  const issues: ValidationIssue[] = [...reader.issues];

  const dirs = new Set<string>();
  for (const f of files) {
    if (!f.path.startsWith(PROFILES_DIR)) continue;
    const rest = f.path.slice(PROFILES_DIR.length);
    const slash = rest.indexOf('/');
    if (slash === -1) issues.push({ loc: [...loc, f.path], msg: 'files under profiles/ must sit in a profile directory profiles/<id>/', type: 'value_error' });
    else dirs.add(rest.slice(0, slash));
  }
  for (const dir of dirs) {
    if (!ids.includes(dir)) {
      issues.push({ loc: [...loc, `${PROFILES_DIR}${dir}`], msg: `profiles/${dir}/ is not listed in blueprint.yaml profiles[]`, type: 'value_error' });
    }
  }

  const profiles: BlueprintProfile[] = [];
  for (const id of ids) {
    const dirLoc = [...loc, `${PROFILES_DIR}${id}`];
    const subset = profileFiles(files, id);
    if (!subset.some((f) => f.path === PROFILE_YAML)) {
      issues.push({ loc: [...dirLoc, PROFILE_YAML], msg: `profiles/${id}/profile.yaml is required for listed profile ${id}`, type: 'missing' });
      continue;
    }
    try {
      const { manifest: profile } = readProfile(subset, dirLoc);
      if (profile.id !== id) {
        issues.push({ loc: [...dirLoc, PROFILE_YAML, 'id'], msg: `id "${profile.id}" must equal its directory name "${id}"`, type: 'value_error' });
      }
      profiles.push({ profile_ref: id, files: subset, manifest: profile });
    } catch (err) {
      if (!(err instanceof ServiceError) || typeof err.detail === 'string') throw err;
      issues.push(...err.detail);
    }
  }
  if (issues.length > 0) throw invalid('SVC_ERR_MANIFEST_INVALID', issues);
  return { manifest, profiles };
}

export interface BuildBlueprintInput {
  blueprint_ref: string;
  version: string;
  name: string;
  summary?: string | null;
  description?: string | null;
  readme?: string | null;
  first_mission_examples?: string[];
  expected_apps?: JsonValue[];
  runtime_hints?: JsonValue[];
  profiles: { profile_ref: string; files: readonly PayloadFile[] }[];
  /** Prior `profiles[]` entries; the entry with a profile's id is kept verbatim, others become `{id}`. */
  recommendations?: JsonValue[];
}

/**
 * The import payload of a library-generated blueprint: blueprint.yaml (id, version, name, summary,
 * description, profiles, expected_apps, runtime_hints, first_mission_examples; empty ones left
 * out), README.md when a readme is given, and each profile's files under `profiles/<ref>/`.
 */
export function buildBlueprintFiles(input: BuildBlueprintInput): PayloadFile[] {
  const recommendation = (ref: string): JsonValue => input.recommendations?.find((r) => isMapping(r) && r.id === ref) ?? { id: ref };
  const doc: YamlMapping = { id: input.blueprint_ref, version: input.version, name: input.name };
  if (input.summary != null) doc.summary = input.summary;
  if (input.description != null) doc.description = input.description;
  doc.profiles = input.profiles.map((p) => recommendation(p.profile_ref));
  if (input.expected_apps?.length) doc.expected_apps = input.expected_apps;
  if (input.runtime_hints?.length) doc.runtime_hints = input.runtime_hints;
  if (input.first_mission_examples?.length) doc.first_mission_examples = input.first_mission_examples;

  const files = [{ path: BLUEPRINT_YAML, content_utf8: dumpYaml(doc) }];
  if (input.readme) files.push({ path: 'README.md', content_utf8: input.readme });
  for (const p of input.profiles) {
    for (const f of p.files) files.push({ path: `${PROFILES_DIR}${p.profile_ref}/${f.path}`, content_utf8: f.content_utf8 });
  }
  return checkPayloadFiles(files, ['files']);
}
