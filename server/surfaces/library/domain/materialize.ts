/**
 * The agent home a runtime writes for a shelf profile, laid out as upstream's CLI expects it: a
 * composed AGENTS.md, the profile's skills and artifacts at the home root, the whole payload under
 * `.svc/profile/` (our brand directory where upstream writes `.aw/profile/`) and a `ref.json` pin
 * with the managed set, which clients use to refresh and prune. Pure: the same input always gives
 * the same bytes.
 *
 * runtime_kind `claude-code` (also the default, empty) adds `CLAUDE.md` → `AGENTS.md` and one
 * directory symlink `.claude/skills/<n>` → `../../skills/<n>` per skill; other kinds get the plain
 * layout. `target` does not change the files (a custodial-mcp home is kept server-side); it is
 * recorded in ref.json with runtime_kind and library_url.
 *
 * A declared skill under `skills/<n>/` brings its whole directory (SKILL.md and the files beside
 * it); a declared artifact brings its file. Declared files that are missing are skipped, and so is
 * a declared path that would land on a generated entry (AGENTS.md, CLAUDE.md, `.claude/...`). A
 * payload file named `ref.json` at the profile root is not copied: that path is the pin's.
 */
import type { HomeFile, MaterializeTarget } from '../../../../contract/library/materialize.ts';
import { canonicalJson, type JsonValue } from '../../../crypto/canonical-json.ts';
import { nestInstructions } from './nest-headings.ts';
import { comparePaths, type PayloadFile } from './payload.ts';
import { readProfile, type ProfileManifest } from './profile-yaml.ts';
import { skillDir } from './skills.ts';

export interface MaterializeInput {
  files: readonly PayloadFile[];
  profile_ref: string;
  profile_version: string;
  profile_digest: string;
  source: { blueprint_ref: string; blueprint_version: string; blueprint_digest: string } | null;
  runtime_kind: string;
  target: MaterializeTarget;
  library_url: string;
}

export const PROFILE_DIR = '.svc/profile';
export const REF_JSON = `${PROFILE_DIR}/ref.json`;

const MEMORY_NOTE =
  `Your full profile is kept under ${PROFILE_DIR}/. To change how you work, propose a change to it ` +
  'through the library; {target} reviews it and mints a new profile version.';
const SKILLS_NOTE = 'These skills are installed where your runtime discovers them:';

function isClaudeCode(runtimeKind: string): boolean {
  return runtimeKind === '' || runtimeKind === 'claude-code';
}

function text(item: JsonValue): string {
  return typeof item === 'string' ? item : canonicalJson(item);
}

function bullets(items: readonly JsonValue[]): string {
  return items.map((item) => `- ${text(item)}`).join('\n');
}

function memorySection(policy: JsonValue | null): string | null {
  if (policy === null || typeof policy !== 'object' || Array.isArray(policy) || Object.keys(policy).length === 0) return null;
  const mode = policy.mode === undefined || policy.mode === null ? '' : text(policy.mode);
  const target = policy.proposal_target === undefined || policy.proposal_target === null ? '' : text(policy.proposal_target);
  return `## Memory and learning\n\nMode: ${mode}\nProposal target: ${target}\n\n${MEMORY_NOTE.replace('{target}', target || 'a reviewer')}`;
}

/** AGENTS.md: the profile in a fixed section order, empty sections left out. */
function composeAgentsMd(manifest: ProfileManifest, instructions: string, input: MaterializeInput): string {
  const provenance = input.source ? `blueprint ${input.source.blueprint_ref} v${input.source.blueprint_version}` : 'created';
  const skillNames = [...new Set(manifest.skills.map((s) => skillDir(s.path) ?? s.path))];
  const nested = nestInstructions(instructions);
  const sections = [
    `# ${manifest.name || input.profile_ref}\n\n> Profile ${input.profile_ref} v${input.profile_version} · ${provenance}`,
    manifest.mission ? `## Mission\n\n${manifest.mission}` : null,
    manifest.accepted_work.length ? `## Work you take on\n\n${bullets(manifest.accepted_work)}` : null,
    nested.trim() ? `## Instructions\n\n${nested.replace(/\n+$/, '')}` : null,
    manifest.expected_apps.length ? `## Apps you use\n\n${bullets(manifest.expected_apps)}` : null,
    manifest.approval_required.length ? `## Actions requiring human approval\n\n${bullets(manifest.approval_required)}` : null,
    memorySection(manifest.memory_policy),
    skillNames.length ? `## Skills\n\n${SKILLS_NOTE}\n\n${bullets(skillNames)}` : null,
  ];
  return `${sections.filter((s) => s !== null).join('\n\n')}\n`;
}

/** Whether two home paths cannot both exist (equal, or one is a directory of the other). */
function overlaps(a: string, b: string): boolean {
  return a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
}

export function materializeHome(input: MaterializeInput): { home_files: HomeFile[]; managed_set: string[] } {
  const { manifest } = readProfile(input.files);
  const byPath = new Map(input.files.map((f) => [f.path, f]));
  const claude = isClaudeCode(input.runtime_kind);

  const generated: HomeFile[] = [
    { path: 'AGENTS.md', kind: 'file', content_utf8: composeAgentsMd(manifest, byPath.get(manifest.instructions)?.content_utf8 ?? '', input) },
  ];
  if (claude) generated.push({ path: 'CLAUDE.md', kind: 'symlink', target: 'AGENTS.md' });

  const resources = new Set<string>();
  const skillDirs = new Set<string>();
  for (const skill of manifest.skills) {
    const dir = skillDir(skill.path);
    const inside = dir === null ? [] : input.files.filter((f) => f.path.startsWith(`skills/${dir}/`)).map((f) => f.path);
    if (dir !== null && inside.length > 0) skillDirs.add(dir);
    for (const path of inside) resources.add(path);
    if (byPath.has(skill.path)) resources.add(skill.path);
  }
  for (const artifact of manifest.artifacts) if (byPath.has(artifact.path)) resources.add(artifact.path);
  if (claude) for (const dir of skillDirs) generated.push({ path: `.claude/skills/${dir}`, kind: 'symlink', target: `../../skills/${dir}` });

  const home: HomeFile[] = [...generated];
  for (const path of resources) {
    if (generated.some((g) => overlaps(g.path, path))) continue;
    home.push({ path, kind: 'file', content_utf8: (byPath.get(path) as PayloadFile).content_utf8 });
  }
  for (const f of input.files) {
    if (f.path !== 'ref.json') home.push({ path: `${PROFILE_DIR}/${f.path}`, kind: 'file', content_utf8: f.content_utf8 });
  }

  const managed = [...home.map((h) => h.path), REF_JSON].sort(comparePaths);
  const ref: Record<string, JsonValue> = {
    library_url: input.library_url,
    managed_set: managed,
    profile_digest: input.profile_digest,
    profile_ref: input.profile_ref,
    profile_version: input.profile_version,
    runtime_kind: input.runtime_kind,
    target: input.target,
  };
  if (input.source) {
    ref.source_blueprint_digest = input.source.blueprint_digest;
    ref.source_blueprint_ref = input.source.blueprint_ref;
    ref.source_blueprint_version = input.source.blueprint_version;
  }
  const sortedRef = Object.fromEntries(Object.entries(ref).sort(([a], [b]) => comparePaths(a, b)));
  home.push({ path: REF_JSON, kind: 'file', content_utf8: `${JSON.stringify(sortedRef, null, 2)}\n` });

  const home_files = home.sort((a, b) => comparePaths(a.path, b.path));
  return { home_files, managed_set: home_files.map((h) => h.path) };
}
