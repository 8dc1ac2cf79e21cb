/**
 * Parsed profile.yaml by profile digest. A digest names the exact files, so the parse can be
 * kept: listings and summaries then read no files and run no YAML parser on a hit.
 */
import { MemoCache } from '../../memo-cache.ts';
import type { PayloadFile } from './domain/payload.ts';
import { readProfile, type ProfileManifest } from './domain/profile-yaml.ts';

const manifests = new MemoCache<ProfileManifest>(2048);

/** The manifest of the files `digest` names; `files` is read only on a miss. */
export function manifestOf(digest: string, files: () => readonly PayloadFile[], loc?: (string | number)[]): ProfileManifest {
  return manifests.get(digest, () => readProfile(files(), loc).manifest);
}
