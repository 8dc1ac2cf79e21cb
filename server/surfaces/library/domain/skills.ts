/**
 * Skills declared from the files. Materialize lays out only the skills profile.yaml declares, so
 * a `skills/<n>/SKILL.md` added without a `skills:` entry used to stay invisible to the runtime
 * (no `.claude/skills/<n>` link) until someone edited profile.yaml by hand. A profile version
 * authored on the shelf (created, or saved as a new version, by the UI or by an agent) therefore
 * gets the missing entries, `{path: skills/<n>/SKILL.md, kind: skill}`, appended to profile.yaml.
 *
 * Why here and so: the rule runs before the version's digest is computed and the files are
 * stored, so the stored files, their sha256 and the profile digest always describe the same bytes
 * (a client's sha256 is checked against what it sent, at the door, before this). Only profile.yaml
 * changes, through the YAML document (comments, order and the other fields kept), and only when a
 * skill is missing: a profile that declares its skills is stored byte for byte. Copies from the
 * catalog (import, update from source) are not authored here and stay byte for byte, so their
 * digests keep agreeing with the blueprint's; approved proposals mint exactly what was reviewed.
 */
import { isDeepStrictEqual } from 'node:util';
import { isSeq, parseDocument, stringify } from 'yaml';
import { comparePaths, payloadFile, sortFiles, type PayloadFile } from './payload.ts';
import { PROFILE_YAML, readProfile } from './profile-yaml.ts';

const SKILL_FILE = /^skills\/([^/]+)\/SKILL\.md$/;

/** `skills/<n>/...` → `<n>`; null for a path that is not inside a skill directory. */
export function skillDir(path: string): string | null {
  const segments = path.split('/');
  return segments[0] === 'skills' && segments.length >= 3 ? (segments[1] as string) : null;
}

/** The SKILL.md files whose skill directory no `skills:` entry names, in path order. */
export function undeclaredSkills(files: readonly PayloadFile[], loc: (string | number)[] = []): string[] {
  const { manifest } = readProfile(files, loc);
  const declared = new Set(manifest.skills.map((skill) => skillDir(skill.path)));
  return files
    .map((f) => f.path)
    .filter((path) => SKILL_FILE.test(path) && !declared.has(skillDir(path)))
    .sort(comparePaths);
}

/**
 * profile.yaml text with `paths` appended to `skills:`. Without a `skills` key the entries are
 * appended as text, so every byte before them stays; otherwise (or when an odd ending such as a
 * `...` marker keeps appended text from reading back) the YAML document is edited, which keeps
 * comments, key order and values but may respace a line.
 */
function declareSkills(text: string, paths: readonly string[]): string {
  // readProfile accepted this text, so it parses, as one mapping, with unique keys and no aliases.
  const document = parseDocument(text, { schema: 'core', uniqueKeys: true });
  const entries = paths.map((path) => ({ path, kind: 'skill' }));
  if (!document.has('skills')) {
    const appended = `${text}${text === '' || text.endsWith('\n') ? '' : '\n'}${stringify({ skills: entries }, { lineWidth: 0 })}`;
    const reread = parseDocument(appended, { schema: 'core', uniqueKeys: true });
    if (reread.errors.length === 0 && isDeepStrictEqual(reread.toJS(), { ...(document.toJS() as object), skills: entries })) return appended;
  }
  const skills = document.get('skills', true);
  if (isSeq(skills)) skills.items.push(...entries.map((entry) => document.createNode(entry)));
  else document.set('skills', document.createNode(entries));
  return document.toString({ lineWidth: 0 });
}

/**
 * The files with every undeclared skill declared in profile.yaml, and the SKILL.md paths that
 * were. Nothing to declare: the same files. 422 (at `loc`) when profile.yaml does not read.
 */
export function registerSkills(files: readonly PayloadFile[], loc: (string | number)[] = []): { files: PayloadFile[]; registered: string[] } {
  const registered = undeclaredSkills(files, loc);
  if (registered.length === 0) return { files: [...files], registered };
  const manifest = files.find((f) => f.path === PROFILE_YAML) as PayloadFile;
  const declared = payloadFile(PROFILE_YAML, declareSkills(manifest.content_utf8, registered));
  const next = sortFiles(files.map((f) => (f.path === PROFILE_YAML ? declared : f)));
  // The rewrite must read back as a valid profile that now declares them all.
  if (undeclaredSkills(next, loc).length > 0) throw new Error('registerSkills: profile.yaml did not take the skills');
  return { files: next, registered };
}
