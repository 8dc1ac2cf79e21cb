/**
 * Identity backup (DESIGN §6): a persistent identity's seed (sealed under a passphrase inside
 * custody), its did:svc log and its own signed audit log, so it can be restored on this node or
 * another. Key loss is identity loss; this is the way out.
 */
import { issueApiKey } from '../../../auth/api-keys.ts';
import type { NodeContext } from '../../../context.ts';
import type { LogEntry } from '../../../crypto/identity-log.ts';
import { conflict, invalid } from '../../../errors.ts';
import { parseWith } from '../../../http/validate.ts';
import { aliasTaken } from './aliases.ts';
import { appendAgentLog, readAgentLog, restoreAgentLog, type AgentLogEntry } from './agent-log.ts';
import type { AgentRow, CoreDeps, IdentityService } from './service.ts';
import { BACKUP_FORMAT, IdentityBackup, type ImportedIdentity } from '../../../../contract/node/identities.ts';

/** The did:key a sealed key blob names in the clear; null when the blob is not one. */
function backedUpDidKey(blob: string): unknown {
  try {
    return (JSON.parse(blob) as { did_key?: unknown }).did_key ?? null;
  } catch {
    return null;
  }
}

export class IdentityBackups {
  readonly #ctx: NodeContext;
  readonly #deps: CoreDeps;
  readonly #identities: IdentityService;

  constructor(ctx: NodeContext, deps: CoreDeps, identities: IdentityService) {
    this.#ctx = ctx;
    this.#deps = deps;
    this.#identities = identities;
  }

  export(agentId: string, passphrase: string): IdentityBackup {
    const row = this.#identities.row(agentId);
    if (row.lifetime !== 'persistent' || row.did_aw === null || row.name === null) {
      throw conflict('Only persistent identities can be backed up; an ephemeral one has no lasting identity');
    }
    if (row.status === 'replaced') throw conflict('This identity was replaced; back up its successor');
    appendAgentLog(this.#ctx, agentId, { keyId: row.key_id, didKey: row.did_key }, { operation: 'export' });
    return {
      format: BACKUP_FORMAT,
      v: 1,
      identity: {
        agent_id: row.agent_id,
        name: row.name,
        did_aw: row.did_aw,
        address_reachability: row.address_reachability,
        human_name: row.human_name,
        role: row.role,
        program: row.program,
        context: row.context === null ? null : (JSON.parse(row.context) as Record<string, unknown>),
        created_at: row.created_at,
      },
      did_log: this.#deps.did.log(row.did_aw),
      agent_log: readAgentLog(this.#ctx, agentId),
      key: this.#ctx.custody.exportKey(row.key_id, passphrase),
    };
  }

  /**
   * Restores a backup into a project: the log must verify and end at the backed-up key, the
   * identity keeps its agent id (its audit log is signed over it), and it gets the project's
   * address when the project has a namespace and the name is free.
   */
  import(projectId: string, input: unknown, passphrase: string): ImportedIdentity {
    const backup = parseWith(IdentityBackup, input, 'body');
    const { db, custody, clock } = this.#ctx;
    const project = this.#deps.projects.get(projectId);
    const { identity } = backup;
    const keyDid = backedUpDidKey(backup.key);
    return db.transaction(() => {
      if (db.prepare(`SELECT 1 FROM agents WHERE agent_id = ?`).get(identity.agent_id)) {
        throw conflict('This identity is already on this node');
      }
      if (aliasTaken(db, projectId, identity.name)) throw conflict(`Alias ${identity.name} is already in use in project ${project.slug}`);
      const currentKey = this.#deps.did.importLog(backup.did_log as LogEntry[]);
      if (keyDid !== currentKey) throw invalid('The backed-up key is not the identity\'s current key');
      const keyId = custody.importKey(backup.key, passphrase, 'identity');
      const now = clock.now().toISOString();
      db.prepare(
        `INSERT INTO agents (agent_id, project_id, alias, name, lifetime, key_id, did_key, did_aw, address_reachability,
           human_name, role, program, context, created_at, updated_at)
         VALUES (?, ?, ?, ?, 'persistent', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        identity.agent_id,
        projectId,
        identity.name,
        identity.name,
        keyId,
        currentKey,
        identity.did_aw,
        identity.address_reachability,
        identity.human_name,
        identity.role,
        identity.program,
        identity.context === null ? null : JSON.stringify(identity.context),
        identity.created_at,
        now,
      );
      restoreAgentLog(this.#ctx, identity.agent_id, backup.agent_log as AgentLogEntry[]);
      appendAgentLog(this.#ctx, identity.agent_id, { keyId, didKey: currentKey }, { operation: 'import', metadata: { project_id: projectId } });
      this.#assignIfFree(project.namespace, identity.name, currentKey, identity.did_aw);
      const { apiKey } = issueApiKey(db, projectId, identity.agent_id, now);
      const view = this.#identities.view(this.#identities.row(identity.agent_id) as AgentRow);
      return { ...view, api_key: apiKey };
    })();
  }

  #assignIfFree(domain: string | null, name: string, didKey: string, didAw: string): void {
    if (domain === null || this.#deps.namespaces.findAddress(domain, name) !== null) return;
    const controller = this.#deps.namespaces.get(domain).controller_did;
    this.#deps.namespaces.assignAddress(domain, name, controller, didKey, didAw);
  }
}
