/**
 * Blueprint and profile payloads as a client would build them, in upstream's layout: profile.yaml
 * plus instructions, skills and artifacts, each file with its `sha256:` digest.
 */
import { createHash } from 'node:crypto';
import { stringify } from 'yaml';

export interface FileEntry {
  path: string;
  content_utf8: string;
  sha256: string;
}

export const IMPORT_SCHEMA = 'svc.blueprint.import-payload.v1';
export const CHANGESET_SCHEMA = 'svc.library.profile-asset-changeset.v1';

export const sha = (content: string): string => `sha256:${createHash('sha256').update(content, 'utf8').digest('hex')}`;

export const file = (path: string, content: string): FileEntry => ({ path, content_utf8: content, sha256: sha(content) });

export interface ProfileSpec {
  ref: string;
  version?: string;
  name?: string;
  mission?: string;
  instructions?: string;
  accepted_work?: string[];
  skills?: Record<string, string>;
  /** Extra profile.yaml keys. */
  yaml?: Record<string, unknown>;
  /** Extra files, path → content. */
  files?: Record<string, string>;
}

/** A profile payload: profile-relative paths. */
export function profileFiles(spec: ProfileSpec): FileEntry[] {
  const skills = Object.keys(spec.skills ?? {});
  const manifest: Record<string, unknown> = {
    id: spec.ref,
    version: spec.version ?? '0.1.0',
    name: spec.name ?? `The ${spec.ref}`,
    mission: spec.mission ?? `Do what a ${spec.ref} does.`,
    accepted_work: spec.accepted_work ?? ['reviews'],
    instructions: 'instructions.md',
    memory_policy: { mode: 'reviewed-learning', proposal_target: 'library' },
    expected_apps: ['mail'],
    ...(skills.length ? { skills: skills.map((name) => ({ path: `skills/${name}/SKILL.md`, kind: 'skill' })) } : {}),
    ...spec.yaml,
  };
  const entries = [
    file('profile.yaml', stringify(manifest)),
    file('instructions.md', spec.instructions ?? `# ${spec.ref}\n\nWork carefully.\n`),
    ...skills.map((name) => file(`skills/${name}/SKILL.md`, spec.skills![name]!)),
    ...Object.entries(spec.files ?? {}).map(([path, content]) => file(path, content)),
  ];
  return entries;
}

export interface BlueprintSpec {
  ref: string;
  version?: string;
  name?: string;
  summary?: string;
  profiles: ProfileSpec[];
  readme?: string;
}

/** The canonical import payload of a blueprint with the given profiles. */
export function blueprintPayload(spec: BlueprintSpec): { schema: string; files: FileEntry[] } {
  const manifest = {
    id: spec.ref,
    version: spec.version ?? '1.0.0',
    name: spec.name ?? `Blueprint ${spec.ref}`,
    summary: spec.summary ?? 'A team of agents',
    profiles: spec.profiles.map((p) => ({ id: p.ref, default_count: 1 })),
  };
  const files = [file('blueprint.yaml', stringify(manifest))];
  if (spec.readme) files.push(file('README.md', spec.readme));
  for (const profile of spec.profiles) {
    for (const entry of profileFiles(profile)) files.push(file(`profiles/${profile.ref}/${entry.path}`, entry.content_utf8));
  }
  return { schema: IMPORT_SCHEMA, files };
}
