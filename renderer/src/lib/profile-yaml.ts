/**
 * profile.yaml in the editor and in proposal review: set its `version` without disturbing the
 * rest of the text, and render one field's value as text to diff; and the two files a new profile
 * starts with. Uses the `yaml` package (a dependency the node already has); tested in
 * profile-yaml.test.ts.
 */
import { stringify } from 'yaml';
import { yamlMapping, type YamlDocument } from './yaml-mapping.ts';

/** A profile.yaml that cannot be used, in plain words. */
export class ProfileYamlError extends Error {}

function documentOf(text: string): YamlDocument {
  return yamlMapping(text, 'profile.yaml', 'id: …, version: …', (message) => new ProfileYamlError(message));
}

/** The text with `version` set (comments, order and the other fields kept). */
export function setProfileVersion(text: string, version: string): string {
  const document = documentOf(text);
  document.set('version', version);
  return document.toString();
}

/** The `version` field of profile.yaml text, or null when it has none or does not parse. */
export function profileVersionOf(text: string): string | null {
  try {
    const value = documentOf(text).get('version');
    return typeof value === 'string' ? value : null;
  } catch {
    return null;
  }
}

/** A field value as reviewable text: a string as it is, anything else as YAML. Null when absent. */
export function renderFieldValue(value: unknown): string | null {
  if (value === undefined) return null;
  if (typeof value === 'string') return value.endsWith('\n') ? value : `${value}\n`;
  return stringify(value, { lineWidth: 0 });
}

/** One field of profile.yaml text, rendered with renderFieldValue; null when absent. */
export function profileFieldText(text: string, field: string): string | null {
  let data: unknown;
  try {
    data = documentOf(text).toJS();
  } catch {
    return null;
  }
  if (typeof data !== 'object' || data === null || !Object.hasOwn(data, field)) return null;
  return renderFieldValue((data as Record<string, unknown>)[field]);
}

/** The first version of a profile made on the shelf. */
export const STARTER_PROFILE_VERSION = '0.1.0';

/**
 * A new profile's files: profile.yaml (id, version 0.1.0, name, mission when given, instructions:
 * instructions.md) and instructions.md with a heading, ready for "Edit as new version".
 */
export function starterProfileFiles(input: { id: string; name: string; mission: string }): { path: string; content_utf8: string }[] {
  const name = input.name.trim();
  const mission = input.mission.trim();
  const manifest: Record<string, string> = { id: input.id.trim(), version: STARTER_PROFILE_VERSION, name };
  if (mission !== '') manifest['mission'] = mission;
  manifest['instructions'] = 'instructions.md';
  return [
    { path: 'profile.yaml', content_utf8: stringify(manifest, { lineWidth: 0 }) },
    { path: 'instructions.md', content_utf8: `# ${name.replace(/\s+/g, ' ')}\n` },
  ];
}
