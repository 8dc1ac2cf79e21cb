/**
 * Content digests, upstream's algorithms: of a whole payload, and of each part of a profile. Schema
 * strings are ours (`svc.*`, DESIGN §5, contract/library-rules.ts), so digests deliberately differ
 * from upstream aweb catalogs. Tags and other record metadata never enter a digest, and file order
 * does not matter (files are sorted by path first).
 */
import { IMPORT_PAYLOAD_SCHEMA, PROFILE_PAYLOAD_SCHEMA } from '../../../../contract/library-rules.ts';
import { canonicalJson, type JsonValue } from '../../../crypto/canonical-json.ts';
import { sha256Hex } from '../../../crypto/encoding.ts';
import { sortFiles, type PayloadFile } from './payload.ts';
import { FIELD_ASSETS, fieldValue, PROFILE_YAML, readProfile } from './profile-yaml.ts';

// The schema strings are the wire contract's (contract/library-rules.ts): the UI sends them too.
export { CHANGESET_SCHEMA, IMPORT_PAYLOAD_SCHEMA, PROFILE_PAYLOAD_SCHEMA } from '../../../../contract/library-rules.ts';

function digestOf(value: JsonValue): string {
  return `sha256:${sha256Hex(canonicalJson(value))}`;
}

/** `sha256:` + hex of the canonical `{files (sorted by path), schema}`. */
export function payloadDigest(files: readonly PayloadFile[], schema: string): string {
  const entries = sortFiles(files).map(({ path, content_utf8, sha256 }) => ({ path, content_utf8, sha256 }));
  return digestOf({ files: entries, schema });
}

/** The digest of a profile payload (profile-relative paths). */
export function profileDigest(files: readonly PayloadFile[]): string {
  return payloadDigest(files, PROFILE_PAYLOAD_SCHEMA);
}

/** The digest of a blueprint import payload (blueprint-relative paths). */
export function blueprintDigest(files: readonly PayloadFile[]): string {
  return payloadDigest(files, IMPORT_PAYLOAD_SCHEMA);
}

/** The digest of one profile.yaml field value; an absent field digests as null. */
export function fieldDigest(value: JsonValue | undefined): string {
  return digestOf(value ?? null);
}

/** Per-part baselines: `file:<path>` for every file, `field:<name>` for each of the 11 field assets. */
export function partDigests(files: readonly PayloadFile[]): Record<string, string> {
  const { document } = readProfile(files);
  return Object.fromEntries([
    ...files.map((f) => [`file:${f.path}`, f.sha256]),
    ...FIELD_ASSETS.map((field) => [`field:${field}`, fieldDigest(fieldValue(document, field))]),
  ]);
}

/**
 * The bases a proposal quotes (ours, so a proposer need not compute them), keyed by exact proposal
 * path: every file path (profile.yaml included) and `profile.yaml#<field>` for each field asset
 * present in profile.yaml. An absent field has no entry, which tells a client to create it without
 * a base.
 */
export function proposalAssetDigests(files: readonly PayloadFile[]): Record<string, string> {
  const { document } = readProfile(files);
  const present = FIELD_ASSETS.filter((field) => fieldValue(document, field) !== undefined);
  // fromEntries defines own properties, so even a file named `__proto__` is an ordinary key.
  return Object.fromEntries([
    ...files.map((f) => [f.path, f.sha256]),
    ...present.map((field) => [`${PROFILE_YAML}#${field}`, fieldDigest(fieldValue(document, field))]),
  ]);
}
