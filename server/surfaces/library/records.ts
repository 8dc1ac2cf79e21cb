/**
 * The library's stored JSON columns and the small helpers every library service shares, so the
 * encode/decode rules for payloads, tags and pins live in one place.
 */
import type { JsonValue } from '../../crypto/canonical-json.ts';
import type { PayloadFile } from './domain/payload.ts';

export const toJson = (value: unknown): string => JSON.stringify(value);

export function fromJson<T = JsonValue>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}

export const filesOf = (text: string): PayloadFile[] => JSON.parse(text) as PayloadFile[];

export const tagsOf = (text: string): string[] => JSON.parse(text) as string[];

/** Where a shelf profile was copied from; all null for a profile created on the shelf. */
export interface SourcePins {
  source_blueprint_ref: string | null;
  source_blueprint_version: string | null;
  source_blueprint_digest: string | null;
  source_profile_ref: string | null;
  source_profile_version: string | null;
  source_profile_digest: string | null;
}

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
