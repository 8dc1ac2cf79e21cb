/**
 * How the library keeps JSON in TEXT columns (payload files, tags, manifest lists, merge
 * baselines, proposal content): one encoding, and the one decoder the row mappers use, so a
 * column reads back as the type its writer stored.
 */
import type { JsonValue } from '../../../crypto/canonical-json.ts';

export const toJson = (value: unknown): string => JSON.stringify(value);

export function fromJson<T = JsonValue>(text: string): T;
export function fromJson<T = JsonValue>(text: string | null): T | null;
export function fromJson<T = JsonValue>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}
