/**
 * Tool output schemas as every MCP host can read them. Zod writes a nullable scalar as a type
 * list (`{"type": ["string", "null"]}`): legal JSON Schema, but a host that maps tool schemas onto
 * a single-`type` dialect (the OpenAPI subset some model providers use) rejects the tool or drops
 * the constraint, and the MCP Inspector's `--strict` check flags it. Here such a field becomes
 * `anyOf` branches of one type each, which every validator reads the same way. Only the
 * advertised JSON Schema changes: results are still checked by the zod schema itself.
 */
import type { z } from 'zod';

type JsonSchema = Record<string, unknown>;

/** `{type: [a, b], ...rest}` as `{anyOf: [{type: a, ...rest}, {type: b}]}`, everywhere in `node`. */
function splitTypeLists(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(splitTypeLists);
  if (typeof node !== 'object' || node === null) return node;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) out[key] = splitTypeLists(value);
  const types = out.type;
  if (!Array.isArray(types)) return out;
  const { type: _types, title, description, default: fallback, ...constraints } = out;
  const annotations = Object.fromEntries(Object.entries({ title, description, default: fallback }).filter(([, value]) => value !== undefined));
  const branch = (name: unknown): JsonSchema => (name === 'null' ? { type: 'null' } : { type: name, ...constraints });
  return { ...annotations, anyOf: types.map(branch) };
}

/** `schema`, advertising a JSON Schema without type lists; validation unchanged. */
export function portable<T extends z.ZodType>(schema: T): T {
  const standard = schema['~standard'];
  const jsonSchema = {
    input: (options: Parameters<typeof standard.jsonSchema.input>[0]) => splitTypeLists(standard.jsonSchema.input(options)) as JsonSchema,
    output: (options: Parameters<typeof standard.jsonSchema.output>[0]) => splitTypeLists(standard.jsonSchema.output(options)) as JsonSchema,
  };
  const portableStandard = { ...standard, jsonSchema };
  return new Proxy(schema, { get: (target, key, receiver) => (key === '~standard' ? portableStandard : Reflect.get(target, key, receiver)) });
}
