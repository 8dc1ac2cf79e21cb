/**
 * YAML in and out for blueprint.yaml and profile.yaml. Parsing pins the YAML 1.2 core schema, so
 * `yes`/`no`/`on` stay strings and dates stay text (upstream parses with PyYAML, YAML 1.1), and
 * fails closed: a syntax error, duplicate key, second document or unresolved tag is a 422. Dumping
 * is deterministic (key order kept, block style, no line folding, no anchors), so a rewritten file
 * has one spelling and re-reads to the same values; strings a YAML 1.1 reader would take for
 * something else (`yes`, `2024-01-02`, `017`) are quoted, so PyYAML-based tools read them the same.
 *
 * Untrusted YAML is bounded before it is composed (the composer and toJS recurse): at most
 * MAX_YAML_BYTES, lists and mappings at most MAX_JSON_DEPTH deep, and no aliases at all. Aliases
 * are refused rather than counted: a manifest never needs them, our dump writes every value out in
 * full anyway (so a few aliases of a large node would multiply the stored file), and a bounded
 * alias count still lets a small file expand into a large value (the "billion laughs" attack).
 */
import { Parser, parseDocument, stringify, type CST } from 'yaml';
import type { JsonValue } from '../../../crypto/canonical-json.ts';
import { invalid, type ValidationIssue } from '../../../errors.ts';
import { MAX_JSON_DEPTH } from '../../../json-depth.ts';
import { toJsonValue } from './json-value.ts';

export type YamlMapping = Record<string, JsonValue>;

/** The largest blueprint.yaml or profile.yaml the node reads (a manifest is a few KiB). */
export const MAX_YAML_BYTES = 256 * 1024;

/**
 * Why `text` must not be composed, or null. The CST parser is iterative, so this walk (with its
 * own stack) sees any depth without recursing.
 */
function shapeProblem(text: string): string | null {
  if (Buffer.byteLength(text, 'utf8') > MAX_YAML_BYTES) return `YAML: the document must be at most ${MAX_YAML_BYTES} bytes`;
  const stack: { token: CST.Token; depth: number }[] = [];
  for (const token of [...new Parser().parse(text)].reverse()) stack.push({ token, depth: 0 });
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { token, depth } = next;
    if (token.type === 'document' && token.value) stack.push({ token: token.value, depth });
    if (token.type === 'alias') return `YAML: aliases (${token.source}) are not allowed; write the value out in full`;
    if (token.type === 'block-map' || token.type === 'block-seq' || token.type === 'flow-collection') {
      if (depth >= MAX_JSON_DEPTH) return `YAML: lists and mappings must not nest deeper than ${MAX_JSON_DEPTH} levels`;
      // Pushed last to first, so problems are found (and reported) in document order.
      for (const item of [...token.items].reverse()) {
        if (item.value) stack.push({ token: item.value, depth: depth + 1 });
        if (item.key) stack.push({ token: item.key, depth: depth + 1 });
      }
    }
  }
  return null;
}

/** Parses `text` as one YAML document that must be a mapping; issues are located under `loc`. */
export function parseYamlMapping(text: string, loc: (string | number)[]): YamlMapping {
  const issue = (msg: string): ValidationIssue => ({ loc, msg, type: 'value_error' });
  const shape = shapeProblem(text);
  if (shape) throw invalid('SVC_ERR_MANIFEST_INVALID', [issue(shape)]);
  const doc = parseDocument(text, { schema: 'core', uniqueKeys: true });
  const problems = [...doc.errors, ...doc.warnings];
  if (problems.length > 0) {
    // The first line of a message names the problem and its line and column; the rest is an excerpt.
    throw invalid(
      'SVC_ERR_MANIFEST_INVALID',
      problems.map((p) => issue(`YAML: ${(p.message.split('\n')[0] ?? '').replace(/:$/, '')}`)),
    );
  }
  let js: unknown;
  try {
    // maxAliasCount 0: any alias the walk above missed still fails here, as a 422.
    js = doc.toJS({ maxAliasCount: 0 });
  } catch (error) {
    throw invalid('SVC_ERR_MANIFEST_INVALID', [issue(`YAML: ${error instanceof Error ? error.message : String(error)}`)]);
  }
  const { value, issues } = toJsonValue(js, loc);
  if (issues.length > 0) throw invalid('SVC_ERR_MANIFEST_INVALID', issues);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalid('SVC_ERR_MANIFEST_INVALID', [issue('must be a YAML mapping (key: value lines)')]);
  }
  return value;
}

/** The YAML text of a mapping, in its own key order. */
export function dumpYaml(mapping: YamlMapping): string {
  return stringify(mapping, { schema: 'core', compat: 'yaml-1.1', lineWidth: 0, aliasDuplicateObjects: false });
}
