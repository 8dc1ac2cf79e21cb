/**
 * update-from-source, upstream's merge (docs/adr/0006-library-and-document-surfaces.md): a
 * three-way merge of a shelf profile (ours) with a newer copy of its source profile (theirs), part
 * by part against the digests recorded at the last copy or sync (baselines). A part is a whole file
 * or one MERGE_FIELDS field; there is no line merge and no conflict marker. Upstream changes land
 * only where ours never evolved, so local learning (including approved proposals) is never
 * clobbered.
 *
 * A part missing from the baselines counts as unknown: it never equals ours or theirs, so ours is
 * kept unless ours and theirs already agree.
 *
 * skills[] and artifacts[] are rebuilt from the merged files, each entry's kind taken from ours,
 * then theirs, then the default. Unlike upstream, a multi-file skill (`skills/<n>/SKILL.md` plus
 * references beside it) keeps one entry, its SKILL.md; files inside it get an entry of their own
 * only when ours or theirs declared them. Declared entries outside skills/ or artifacts/ are kept
 * while their file exists.
 */
import { fieldDigest } from './digest.ts';
import { comparePaths, sortFiles, type PayloadFile } from './payload.ts';
import { fieldValue, MERGE_FIELDS, PROFILE_YAML, readProfile, writeProfileFile, type ResourceEntry } from './profile-yaml.ts';

export interface MergeResult {
  files: PayloadFile[];
  /** Parts taken from theirs: upstream improvements pulled in. */
  updated_parts: string[];
  /** Parts kept as ours although upstream changed them too. */
  preserved_parts: string[];
}

/** Whether `path` is a supporting file of a skill directory that has its own SKILL.md. */
function insideSkill(path: string, present: ReadonlySet<string>): boolean {
  const segments = path.split('/');
  if (segments[0] !== 'skills' || segments.length < 3) return false;
  const skillFile = `skills/${segments[1]}/SKILL.md`;
  return path !== skillFile && present.has(skillFile);
}

function rebuildEntries(category: 'skills' | 'artifacts', paths: readonly string[], declared: readonly ResourceEntry[], defaultKind: string): ResourceEntry[] {
  const kinds = new Map<string, string>();
  for (const entry of declared) if (!kinds.has(entry.path)) kinds.set(entry.path, entry.kind);
  const present = new Set(paths);
  return paths
    .filter((p) => kinds.has(p) || (p.startsWith(`${category}/`) && !insideSkill(p, present)))
    .map((p) => ({ path: p, kind: kinds.get(p) ?? defaultKind }));
}

export function mergeFromSource(input: {
  ours: readonly PayloadFile[];
  theirs: readonly PayloadFile[];
  baselines: Record<string, string>;
  targetVersion: string;
}): MergeResult {
  const ours = readProfile(input.ours);
  const theirs = readProfile(input.theirs);
  const baseline = (part: string): string | undefined => (Object.hasOwn(input.baselines, part) ? input.baselines[part] : undefined);
  const updated: string[] = [];
  const preserved: string[] = [];
  /** Whether to take theirs for a part, recording the decision. */
  const takeTheirs = (part: string, o: string | undefined, t: string | undefined): boolean => {
    const b = baseline(part);
    if (o === t || t === b) return false;
    if (o === b) {
      updated.push(part);
      return true;
    }
    preserved.push(part);
    return false;
  };

  const document = { ...ours.document };
  for (const field of MERGE_FIELDS) {
    const theirValue = fieldValue(theirs.document, field);
    if (!takeTheirs(`field:${field}`, fieldDigest(fieldValue(ours.document, field)), fieldDigest(theirValue))) continue;
    if (theirValue === undefined) delete document[field];
    else document[field] = theirValue;
  }

  const oursBy = new Map(input.ours.map((f) => [f.path, f]));
  const theirsBy = new Map(input.theirs.map((f) => [f.path, f]));
  const baselinePaths = Object.keys(input.baselines)
    .filter((k) => k.startsWith('file:'))
    .map((k) => k.slice('file:'.length));
  const paths = new Set([...oursBy.keys(), ...theirsBy.keys(), ...baselinePaths]);
  paths.delete(PROFILE_YAML);
  const merged: PayloadFile[] = [];
  for (const path of paths) {
    const mine = oursBy.get(path);
    const their = theirsBy.get(path);
    const chosen = takeTheirs(`file:${path}`, mine?.sha256, their?.sha256) ? their : mine;
    if (chosen) merged.push(chosen);
  }

  const result = { updated_parts: updated.sort(comparePaths), preserved_parts: preserved.sort(comparePaths) };
  if (updated.length === 0) return { files: sortFiles(input.ours), ...result };

  const mergedPaths = sortFiles(merged).map((f) => f.path);
  document.version = input.targetVersion;
  for (const [category, defaultKind] of [
    ['skills', 'skill'],
    ['artifacts', 'artifact'],
  ] as const) {
    const entries = rebuildEntries(category, mergedPaths, [...ours.manifest[category], ...theirs.manifest[category]], defaultKind);
    if (entries.length > 0 || Object.hasOwn(document, category)) document[category] = entries.map((e) => ({ path: e.path, kind: e.kind }));
  }
  // The rebuilt profile.yaml is checked as it is written (a bad targetVersion is a 422).
  const files = sortFiles([...merged, writeProfileFile(document)]);
  return { files, ...result };
}
