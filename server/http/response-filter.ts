/**
 * What of an answer its declared schema lets out: the two walks the response serializer
 * (route-schemas.ts) needs besides zod's own parse.
 *
 * - `declaredPart` keeps, of a value that does not parse, only the keys its schema declares,
 *   leaving the values as they are: what a node answers when a route drifted from its contract
 *   (the write behind the answer is done; the client still learns it, and nothing undeclared
 *   leaves). It never lets more out than the parse would: a key no schema on its path names is
 *   dropped, and an object or array where the schema wants a plain value becomes null.
 * - `undeclaredPaths` names the keys the parse dropped (present in what a handler answered, absent
 *   from the parsed value): the test suites fail on them, so a field added to a row mapper shows
 *   up as a failing test instead of reaching the wire unnoticed.
 *
 * The schema's holes (`z.unknown()`, `z.any()`, a record's or a loose object's other keys) let
 * any value through, by declaration; each is listed and justified in ARCHITECTURE.md.
 */
import type { z } from 'zod';

type Plain = Record<string, unknown>;

function isPlain(value: unknown): value is Plain {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A value where the schema wants a plain value (string, number, enum, ...): an object or array never passes as one. */
const plainValue = (value: unknown): unknown => (typeof value === 'object' && value !== null ? null : value);

/** Several partial readings of one object, merged: each holds only keys some option declares. */
function merged(parts: unknown[], value: unknown): unknown {
  if (isPlain(value)) return Object.assign({}, ...parts.filter(isPlain)) as Plain;
  return parts.find((part) => part !== null && part !== undefined) ?? plainValue(value);
}

/** `value` with only what `schema` declares (see above); values are not checked. */
export function declaredPart(schema: z.core.$ZodType, value: unknown): unknown {
  const def = (schema as z.core.$ZodTypes)._zod.def;
  switch (def.type) {
    case 'object': {
      if (!isPlain(value)) return plainValue(value);
      const out: Plain = {};
      for (const [key, field] of Object.entries(def.shape)) if (Object.hasOwn(value, key)) out[key] = declaredPart(field, value[key]);
      const rest = def.catchall;
      if (rest !== undefined && rest._zod.def.type !== 'never') {
        for (const key of Object.keys(value)) if (!Object.hasOwn(def.shape, key)) out[key] = declaredPart(rest, value[key]);
      }
      return out;
    }
    case 'record': {
      if (!isPlain(value)) return plainValue(value);
      const out: Plain = {};
      // A record keyed by an enum declares those keys only.
      for (const [key, item] of Object.entries(value)) if (isValid(def.keyType, key)) out[key] = declaredPart(def.valueType, item);
      return out;
    }
    case 'array':
      return Array.isArray(value) ? value.map((item) => declaredPart(def.element, item)) : plainValue(value);
    case 'tuple':
      if (!Array.isArray(value)) return plainValue(value);
      return value.map((item, i) => {
        const slot = def.items[i] ?? def.rest;
        return slot ? declaredPart(slot, item) : null;
      });
    case 'union': {
      // The option the value is, when one parses; else what any option declares.
      const fits = def.options.find((option) => isValid(option, value));
      return fits
        ? declaredPart(fits, value)
        : merged(
            def.options.map((option) => declaredPart(option, value)),
            value,
          );
    }
    case 'intersection':
      return merged([declaredPart(def.left, value), declaredPart(def.right, value)], value);
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'nonoptional':
    case 'readonly':
    case 'catch':
      return value === null || value === undefined ? value : declaredPart(def.innerType, value);
    case 'pipe':
      // An answer is the schema's input: what the handler hands over, before any transform.
      return declaredPart(def.in, value);
    case 'lazy':
      return declaredPart(def.getter(), value);
    case 'any':
    case 'unknown':
      return value;
    default:
      return plainValue(value);
  }
}

/** Whether `value` parses (synchronously: no response schema refines asynchronously). */
function isValid(schema: z.core.$ZodType, value: unknown): boolean {
  const result = schema['~standard'].validate(value);
  return !(result instanceof Promise) && result.issues === undefined;
}

/**
 * The keys of `sent` missing from `parsed` (as `a.b.0.c` paths): what a parse dropped as
 * undeclared. Keys holding `undefined` or a function are left out: JSON never carries them.
 */
export function undeclaredPaths(sent: unknown, parsed: unknown, at: string[] = []): string[] {
  if (Array.isArray(sent) && Array.isArray(parsed)) {
    return sent.flatMap((item, i) => undeclaredPaths(item, parsed[i], [...at, String(i)]));
  }
  if (!isPlain(sent) || !isPlain(parsed)) return [];
  const paths: string[] = [];
  for (const [key, value] of Object.entries(sent)) {
    if (value === undefined || typeof value === 'function') continue;
    if (Object.hasOwn(parsed, key)) paths.push(...undeclaredPaths(value, parsed[key], [...at, key]));
    else paths.push([...at, key].join('.'));
  }
  return paths;
}
