/**
 * For the library's store tests beside the code: a fresh node database for every test (what a
 * test lists or counts is then only what it wrote), and the shelf rows many of them need first.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Db } from '../../server/context.ts';
import { closeDatabase, openDatabase } from '../../server/store/database.ts';
import type { PayloadFile } from '../../server/surfaces/library/domain/payload.ts';
import { insertShelfProfile, NO_SOURCE } from '../../server/surfaces/library/shelf/store/shelf-profiles.ts';
import { insertShelfVersion } from '../../server/surfaces/library/shelf/store/shelf-versions.ts';

export const T0 = '2026-01-01T00:00:00.000Z';

/** An encrypted database with the shipped migrations in a folder of its own; `close` removes both. */
export function openScratchDatabase(): { db: Db; close(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'svc-library-store-'));
  const db = openDatabase({ file: join(dir, 'node.db'), key: randomBytes(32) });
  return {
    db,
    close: () => {
      closeDatabase(db);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** One profile.yaml whose content is `text` (its digest says which, not what it hashes to). */
export const files = (text: string): PayloadFile[] => [{ path: 'profile.yaml', content_utf8: text, sha256: `sha256:${text}` }];

/** A shelf profile of `team`, tagged `ops`, with one version per entry of `versions`. */
export function shelve(db: Db, team: string, ref: string, versions: string[], source = NO_SOURCE): void {
  insertShelfProfile(db, { team_id: team, profile_ref: ref, tags: ['ops'], pins: source, part_baselines: null, created_at: T0 });
  for (const version of versions) {
    insertShelfVersion(db, {
      team_id: team,
      profile_ref: ref,
      version,
      digest: `sv-${ref}-${version}`,
      files: files(`${ref}@${version}`),
      origin: 'version',
      created_at: T0,
    });
  }
}

/** Pins to the planner of blueprint `bp` 1.0.0. */
export const SOURCED = { ...NO_SOURCE, source_blueprint_ref: 'bp', source_blueprint_version: '1.0.0', source_profile_ref: 'planner' };
