/**
 * The `team_projects` and `team_agents` tables: which project a team's members live in, and each
 * connected member's workspace. The only module that reads or writes them.
 */
import type { Db } from '../../../context.ts';

export interface TeamAgentRow {
  workspace_id: string;
  agent_id: string;
  team_id: string;
  certificate_id: string;
  did_key: string;
  alias: string;
  hostname: string;
  workspace_path: string;
  repo_origin: string;
  agent_type: string;
  connected_at: string;
  last_seen_at: string;
  deleted_at: string | null;
}

/** A live member joined with what auth needs of its identity. */
export interface ConnectedAgent extends TeamAgentRow {
  project_id: string;
  status: string;
}

export function teamProjectOf(db: Db, teamId: string): string | undefined {
  return db.prepare(`SELECT project_id FROM team_projects WHERE team_id = ?`).pluck().get(teamId) as string | undefined;
}

export function insertTeamProject(db: Db, teamId: string, projectId: string): void {
  db.prepare(`INSERT INTO team_projects (team_id, project_id) VALUES (?, ?)`).run(teamId, projectId);
}

const LIVE = `SELECT t.*, a.project_id, a.status FROM team_agents t JOIN agents a ON a.agent_id = t.agent_id WHERE t.deleted_at IS NULL`;

export function liveAgentByKey(db: Db, teamId: string, didKey: string): ConnectedAgent | undefined {
  return db.prepare(`${LIVE} AND t.team_id = ? AND t.did_key = ?`).get(teamId, didKey) as ConnectedAgent | undefined;
}

export function liveAgentByAlias(db: Db, teamId: string, alias: string): ConnectedAgent | undefined {
  return db.prepare(`${LIVE} AND t.team_id = ? AND t.alias = ?`).get(teamId, alias) as ConnectedAgent | undefined;
}

export function liveAgentOfIdentity(db: Db, agentId: string): ConnectedAgent | undefined {
  return db.prepare(`${LIVE} AND t.agent_id = ?`).get(agentId) as ConnectedAgent | undefined;
}

export function liveAgentsOfTeam(db: Db, teamId: string): ConnectedAgent[] {
  return db.prepare(`${LIVE} AND t.team_id = ? AND a.status = 'active' ORDER BY t.alias`).all(teamId) as ConnectedAgent[];
}

export function liveAgentsOfCertificate(db: Db, certificateId: string): string[] {
  return db.prepare(`SELECT agent_id FROM team_agents WHERE certificate_id = ? AND deleted_at IS NULL`).pluck().all(certificateId) as string[];
}

/** Each live workspace of a team by the certificate it last used: one query for the owner's member listing. */
export function workspacesOfTeam(db: Db, teamId: string): Pick<TeamAgentRow, 'certificate_id' | 'agent_id' | 'last_seen_at'>[] {
  return db.prepare(`SELECT certificate_id, agent_id, last_seen_at FROM team_agents WHERE team_id = ? AND deleted_at IS NULL`).all(teamId) as Pick<
    TeamAgentRow,
    'certificate_id' | 'agent_id' | 'last_seen_at'
  >[];
}

export function findWorkspace(db: Db, workspaceId: string): ConnectedAgent | undefined {
  return db.prepare(`${LIVE} AND t.workspace_id = ?`).get(workspaceId) as ConnectedAgent | undefined;
}

export function insertTeamAgent(db: Db, row: Omit<TeamAgentRow, 'deleted_at'>): void {
  db.prepare(
    `INSERT INTO team_agents (workspace_id, agent_id, team_id, certificate_id, did_key, alias, hostname, workspace_path, repo_origin, agent_type, connected_at, last_seen_at)
     VALUES (@workspace_id, @agent_id, @team_id, @certificate_id, @did_key, @alias, @hostname, @workspace_path, @repo_origin, @agent_type, @connected_at, @last_seen_at)`,
  ).run(row);
}

/** What a reconnect or PATCH may change; an absent field keeps its value. */
export interface WorkspacePatch {
  certificate_id?: string | undefined;
  hostname?: string | undefined;
  workspace_path?: string | undefined;
  repo_origin?: string | undefined;
  agent_type?: string | undefined;
  last_seen_at?: string | undefined;
}

export function updateWorkspace(db: Db, workspaceId: string, patch: WorkspacePatch): void {
  db.prepare(
    `UPDATE team_agents SET certificate_id = COALESCE(@certificate_id, certificate_id), hostname = COALESCE(@hostname, hostname),
       workspace_path = COALESCE(@workspace_path, workspace_path), repo_origin = COALESCE(@repo_origin, repo_origin),
       agent_type = COALESCE(@agent_type, agent_type), last_seen_at = COALESCE(@last_seen_at, last_seen_at)
     WHERE workspace_id = @workspace_id`,
  ).run({
    workspace_id: workspaceId,
    certificate_id: patch.certificate_id ?? null,
    hostname: patch.hostname ?? null,
    workspace_path: patch.workspace_path ?? null,
    repo_origin: patch.repo_origin ?? null,
    agent_type: patch.agent_type ?? null,
    last_seen_at: patch.last_seen_at ?? null,
  });
}

export function markWorkspaceDeleted(db: Db, workspaceId: string, deletedAt: string): void {
  db.prepare(`UPDATE team_agents SET deleted_at = ? WHERE workspace_id = ?`).run(deletedAt, workspaceId);
}
