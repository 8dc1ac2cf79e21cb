/**
 * The agent's working directory in upstream's layout (its CLI's `aw init` writes it; its channel
 * client refuses to start without it): after `svc-node team join` the agent's own tools find
 * their team, certificate, node and registry there without a second step.
 *
 * - `teams.yaml`: `active_team` and `memberships[{team_id, alias, cert_path, joined_at}]`;
 * - `workspace.yaml`: `aweb_url` (the node's core URL) and
 *   `memberships[{team_id, alias, workspace_id, cert_path, joined_at}]`;
 * - `identity.yaml`, for a persistent member only (upstream reads the file as a persistent
 *   identity): `did`, `stable_id`, `address`, `custody: self`, `lifetime: persistent`,
 *   `registry_url` (this node: a client asks it, not a registry on the internet, who a did:svc is)
 *   and `created_at`.
 *
 * Files already there (an agent in several teams) keep their other memberships and keys; this
 * team's entry is replaced and becomes the active one.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';

export interface JoinedMembership {
  teamId: string;
  alias: string;
  /** Relative to the directory, as upstream writes it. */
  certPath: string;
  joinedAt: string;
  workspaceId: string;
  coreUrl: string;
  didKey: string;
  didAw: string | null;
  address: string | null;
}

type YamlMap = Record<string, unknown>;

function readMap(path: string): YamlMap {
  if (!existsSync(path)) return {};
  const value: unknown = parse(readFileSync(path, 'utf8'));
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as YamlMap) : {};
}

/** The memberships list with this team's entry replaced (or added at the end). */
function withMembership(existing: unknown, teamId: string, entry: YamlMap): YamlMap[] {
  const list = Array.isArray(existing) ? (existing as unknown[]).filter((m): m is YamlMap => typeof m === 'object' && m !== null) : [];
  return [...list.filter((m) => m['team_id'] !== teamId), entry];
}

function update(path: string, change: (current: YamlMap) => YamlMap): void {
  writeFileSync(path, stringify(change(readMap(path))));
}

/** Writes (or updates) the three files for the membership just joined and connected. */
export function writeAgentWorkspace(dir: string, m: JoinedMembership): string[] {
  const membership = { team_id: m.teamId, alias: m.alias, cert_path: m.certPath, joined_at: m.joinedAt };
  const paths = { teams: join(dir, 'teams.yaml'), workspace: join(dir, 'workspace.yaml'), identity: join(dir, 'identity.yaml') };
  update(paths.teams, (current) => ({ ...current, active_team: m.teamId, memberships: withMembership(current['memberships'], m.teamId, membership) }));
  update(paths.workspace, (current) => ({
    ...current,
    aweb_url: m.coreUrl,
    memberships: withMembership(current['memberships'], m.teamId, { ...membership, workspace_id: m.workspaceId }),
  }));
  if (m.didAw === null) return [paths.teams, paths.workspace];
  const stableId = m.didAw;
  update(paths.identity, (current) => ({
    ...current,
    did: m.didKey,
    stable_id: stableId,
    ...(m.address === null ? {} : { address: m.address }),
    custody: 'self',
    lifetime: 'persistent',
    registry_url: m.coreUrl,
    created_at: typeof current['created_at'] === 'string' ? current['created_at'] : m.joinedAt,
  }));
  return Object.values(paths);
}
