/**
 * Typed reads of the fields of a parsed YAML mapping, collecting one issue per wrong field (located
 * at `[...loc, field]`) instead of stopping at the first, so a 422 lists everything to fix.
 */
import { isRef, isVersionString, REF_RULE, VERSION_RULE } from '../../../../contract/library-rules.ts';
import type { JsonValue } from '../../../crypto/canonical-json.ts';
import type { ValidationIssue } from '../../../errors.ts';
import type { YamlMapping } from './yaml-doc.ts';

export class FieldReader {
  readonly issues: ValidationIssue[] = [];
  readonly #doc: YamlMapping;
  readonly #loc: (string | number)[];

  constructor(doc: YamlMapping, loc: (string | number)[]) {
    this.#doc = doc;
    this.#loc = loc;
  }

  /** The raw value of `field`, or undefined when the key is absent. */
  raw(field: string): JsonValue | undefined {
    return Object.hasOwn(this.#doc, field) ? this.#doc[field] : undefined;
  }

  fail(path: (string | number)[], msg: string, type = 'value_error'): void {
    this.issues.push({ loc: [...this.#loc, ...path], msg, type });
  }

  /** A required string that `check` accepts (check returns why not, or null). */
  required(field: string, check: (value: string) => string | null): string {
    const value = this.raw(field);
    if (value === undefined || value === null) {
      this.fail([field], `${field} is required`, 'missing');
      return '';
    }
    if (typeof value !== 'string') {
      this.fail([field], `${field} must be a string`, 'string_type');
      return '';
    }
    const problem = check(value);
    if (problem) this.fail([field], problem);
    return value;
  }

  /** A required ref (blueprint or profile id). */
  ref(field: string): string {
    return this.required(field, (v) => (isRef(v) ? null : `${field} must be ${REF_RULE}`));
  }

  /** A required version string. A bare YAML number is refused: `1.0` would read back as 1. */
  version(field: string): string {
    if (typeof this.raw(field) === 'number') {
      this.fail([field], `${field} must be a string; quote it (for example ${field}: "1.0"), since a bare YAML number like 1.0 reads back as 1`, 'string_type');
      return '';
    }
    return this.required(field, (v) => (isVersionString(v) ? null : `${field} must be ${VERSION_RULE}`));
  }

  /** A string, or null when absent or null. */
  string(field: string): string | null {
    const value = this.raw(field);
    if (value === undefined || value === null) return null;
    if (typeof value === 'string') return value;
    this.fail([field], `${field} must be a string`, 'string_type');
    return null;
  }

  /** A list, or [] when absent or null. */
  list(field: string): JsonValue[] {
    const value = this.raw(field);
    if (value === undefined || value === null) return [];
    if (Array.isArray(value)) return value;
    this.fail([field], `${field} must be a list`, 'list_type');
    return [];
  }

  /** A mapping, or null when absent or null. */
  map(field: string): { [key: string]: JsonValue } | null {
    const value = this.raw(field);
    if (value === undefined || value === null) return null;
    if (typeof value === 'object' && !Array.isArray(value)) return value;
    this.fail([field], `${field} must be a mapping`, 'dict_type');
    return null;
  }
}
