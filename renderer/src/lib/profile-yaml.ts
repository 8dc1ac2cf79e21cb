/**
 * profile.yaml in the editor and in proposal review: set its `version` without disturbing the
 * rest of the text, and render one field's value as text to diff. Uses the `yaml` package (a
 * dependency the node already has); tested in __tests__/profile-yaml.test.ts.
 */
import { isMap, parseDocument, stringify } from 'yaml';

/** A profile.yaml that cannot be used, in plain words. */
export class ProfileYamlError extends Error {}

function documentOf(text: string) {
  const document = parseDocument(text, { prettyErrors: false });
  const error = document.errors[0];
  if (error !== undefined) {
    const line = error.linePos?.[0]?.line;
    throw new ProfileYamlError(`profile.yaml does not parse${line ? ` (line ${line})` : ''}: ${error.message.split('\n')[0]}`);
  }
  if (!isMap(document.contents)) throw new ProfileYamlError('profile.yaml must be a mapping of fields (id: …, version: …).');
  return document;
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
