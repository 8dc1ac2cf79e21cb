/**
 * YAML in and out for blueprint.yaml and profile.yaml. Parsing pins the YAML 1.2 core schema, so
 * `yes`/`no`/`on` stay strings and dates stay text (PyYAML upstream is YAML 1.1; research A3), and
 * fails closed: a syntax error, duplicate key, second document or unresolved tag is a 422. Dumping
 * is deterministic (key order kept, block style, no line folding, no anchors), so a rewritten file
 * has one spelling and re-reads to the same values; strings a YAML 1.1 reader would take for
 * something else (`yes`, `2024-01-02`, `017`) are quoted, so PyYAML-based tools read them the same.
 */
import { parseDocument, stringify } from 'yaml';
import type { JsonValue } from '../../../crypto/canonical-json.ts';
import { invalid } from '../../../errors.ts';
import { toJsonValue } from './json-value.ts';

export type YamlMapping = Record<string, JsonValue>;

/** Parses `text` as one YAML document that must be a mapping; issues are located under `loc`. */
export function parseYamlMapping(text: string, loc: (string | number)[]): YamlMapping {
  const doc = parseDocument(text, { schema: 'core', uniqueKeys: true });
  const problems = [...doc.errors, ...doc.warnings];
  if (problems.length > 0) {
    // The first line of a message names the problem and its line and column; the rest is an excerpt.
    const msgs = problems.map((p) => `YAML: ${(p.message.split('\n')[0] ?? '').replace(/:$/, '')}`);
    throw invalid(msgs.map((msg) => ({ loc, msg, type: 'value_error' })));
  }
  const { value, issues } = toJsonValue(doc.toJS({ maxAliasCount: 100 }), loc);
  if (issues.length > 0) throw invalid(issues);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalid([{ loc, msg: 'must be a YAML mapping (key: value lines)', type: 'value_error' }]);
  }
  return value;
}

/** The YAML text of a mapping, in its own key order. */
export function dumpYaml(mapping: YamlMapping): string {
  return stringify(mapping, { schema: 'core', compat: 'yaml-1.1', lineWidth: 0, aliasDuplicateObjects: false });
}
