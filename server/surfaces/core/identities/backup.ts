/**
 * Identity backup (DESIGN §6): a persistent identity's seed and encryption keys (sealed under a
 * passphrase inside custody), its did:svc log and its own signed audit log, so it can be restored on this node or
 * another. Key loss is identity loss; this is the way out.
 */
import { issueApiKey } from '../../../auth/api-keys.ts';
import type { NodeContext } from '../../../context.ts';
import type { LogEntry } from '../../../crypto/identity-log.ts';
import { conflict, invalid } from '../../../errors.ts';
import { parseWith } from '../../../http/validate.ts';
import { appendAgentLog, restoreAgentLog, type AgentLogEntry } from './agent-log.ts';
import { agentLogEntries } from './store/agent-log.ts';
import type { CoreDeps, IdentityService } from './service.ts';
import { aliasTaken, identityContext, identityStatus, insertIdentity } from './store/agents.ts';
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
      throw conflict('SVC_ERR_IDENTITY_WRONG_LIFETIME', 'Only persistent identities can be backed up; an ephemeral one has no lasting identity');
    }
    if (row.status === 'replaced') throw conflict('SVC_ERR_IDENTITY_REPLACED', 'This identity was replaced; back up its successor');
    if (row.custody === 'self')
      throw conflict(
        'SVC_ERR_IDENTITY_SELF_CUSTODIAL',
        'This identity is self-custodial: the node holds no key to back up; its key is where the client keeps it',
      );
    appendAgentLog(this.#ctx, agentId, { keyId: row.key_id, didKey: row.did_key }, { operation: 'export' });
    return {
      format: BACKUP_FORMAT,
      v: 1,
      identity: {
        agent_id: row.agent_id,
        name: row.name,
        did_aw: row.did_aw,
        address_reachability: row.address_reachability,
        accepts_plaintext: row.accepts_plaintext === 1,
        human_name: row.human_name,
        role: row.role,
        program: row.program,
        context: identityContext(row),
        created_at: row.created_at,
      },
      did_log: this.#deps.did.log(row.did_aw),
      agent_log: agentLogEntries(this.#ctx.db, agentId),
      key: this.#ctx.custody.exportKey(row.key_id, passphrase),
      ...this.#encryptionKeys(agentId, passphrase),
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
      if (identityStatus(db, identity.agent_id) !== undefined) {
        throw conflict('SVC_ERR_IDENTITY_EXISTS', 'This identity is already on this node');
      }
      if (aliasTaken(db, projectId, identity.name))
        throw conflict('SVC_ERR_ALIAS_TAKEN', `Alias ${identity.name} is already in use in project ${project.slug}`);
      const currentKey = this.#deps.did.importLog(backup.did_log as LogEntry[]);
      if (keyDid !== currentKey) throw invalid('SVC_ERR_BACKUP_KEY_NOT_CURRENT', "The backed-up key is not the identity's current key");
      const keyId = custody.importKey(backup.key, passphrase, 'identity');
      const now = clock.now().toISOString();
      insertIdentity(db, {
        agent_id: identity.agent_id,
        project_id: projectId,
        alias: identity.name,
        name: identity.name,
        lifetime: 'persistent',
        key_id: keyId,
        did_key: currentKey,
        did_aw: identity.did_aw,
        address_reachability: identity.address_reachability,
        accepts_plaintext: identity.accepts_plaintext === false ? 0 : 1,
        human_name: identity.human_name,
        role: identity.role,
        program: identity.program,
        context: identity.context,
        created_at: identity.created_at,
        updated_at: now,
      });
      restoreAgentLog(this.#ctx, identity.agent_id, backup.agent_log as AgentLogEntry[]);
      this.#identities.encryptionKeys.restore(identity.agent_id, backup.encryption_keys, passphrase);
      appendAgentLog(this.#ctx, identity.agent_id, { keyId, didKey: currentKey }, { operation: 'import', metadata: { project_id: projectId } });
      this.#assignIfFree(project.namespace, identity.name, currentKey, identity.did_aw);
      const { apiKey } = issueApiKey(db, projectId, identity.agent_id, now);
      const view = this.#identities.view(this.#identities.row(identity.agent_id));
      return { ...view, api_key: apiKey };
    })();
  }

  #encryptionKeys(agentId: string, passphrase: string): Pick<IdentityBackup, 'encryption_keys'> {
    const encryption = this.#identities.encryptionKeys.exportFor(agentId, passphrase);
    return encryption === undefined ? {} : { encryption_keys: encryption };
  }

  #assignIfFree(domain: string | null, name: string, didKey: string, didAw: string): void {
    if (domain === null || this.#deps.namespaces.findAddress(domain, name) !== null) return;
    const controller = this.#deps.namespaces.get(domain).controller_did;
    this.#deps.namespaces.assignAddress(domain, name, controller, didKey, didAw);
  }
}
