/**
 * The library's stored JSON columns and the small helpers every library service shares, so the
 * encode/decode rules for payloads, tags and pins live in one place.
 */
import type { SourcePins } from '../../../contract/library/common.ts';
import type { JsonValue } from '../../crypto/canonical-json.ts';
import type { PayloadFile } from './domain/payload.ts';

export const toJson = (value: unknown): string => JSON.stringify(value);

export function fromJson<T = JsonValue>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}

export const filesOf = (text: string): PayloadFile[] => JSON.parse(text) as PayloadFile[];

export const tagsOf = (text: string): string[] => JSON.parse(text) as string[];

export type { SourcePins };

/** A stored JSON list (a NOT NULL column). */
export const listOf = (text: string): JsonValue[] => JSON.parse(text) as JsonValue[];

export const NO_SOURCE: SourcePins = {
  source_blueprint_ref: null,
  source_blueprint_version: null,
  source_blueprint_digest: null,
  source_profile_ref: null,
  source_profile_version: null,
  source_profile_digest: null,
};

export function pinsOf(row: SourcePins): SourcePins {
  return {
    source_blueprint_ref: row.source_blueprint_ref,
    source_blueprint_version: row.source_blueprint_version,
    source_blueprint_digest: row.source_blueprint_digest,
    source_profile_ref: row.source_profile_ref,
    source_profile_version: row.source_profile_version,
    source_profile_digest: row.source_profile_digest,
  };
}
