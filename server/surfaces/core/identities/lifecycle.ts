/**
 * Identity lifecycle (spec §3): key rotation, deletion of ephemeral identities, and the hosted
 * archive / replace transitions of persistent ones.
 */
import { randomUUID } from 'node:crypto';
import { deactivateAgentKeys, issueApiKey } from '../../../auth/api-keys.ts';
import { signingTimestamp } from '../../../clock.ts';
import type { NodeContext } from '../../../context.ts';
import { replacementPayloadBytes, rotationPayloadBytes } from '../../../crypto/announcements.ts';
import { publicKeyFromDidKey } from '../../../crypto/did-key.ts';
import { toBase64Unpadded } from '../../../crypto/encoding.ts';
import { conflict } from '../../../errors.ts';
import { appendAgentLog } from './agent-log.ts';
import { successorAlias } from './aliases.ts';
import type { AgentRow, CoreDeps, IdentityService } from './service.ts';
import type { Archived, Deleted, Replaced, Rotated } from '../../../../contract/core/identities.ts';

export class IdentityLifecycle {
  readonly #ctx: NodeContext;
  readonly #deps: CoreDeps;
  readonly #identities: IdentityService;

  constructor(ctx: NodeContext, deps: CoreDeps, identities: IdentityService) {
    this.#ctx = ctx;
    this.#deps = deps;
    this.#identities = identities;
  }

  #persistent(row: AgentRow, action: string): asserts row is AgentRow & { did_aw: string } {
    if (row.lifetime !== 'persistent' || row.did_aw === null) {
      throw conflict(`Cannot ${action} an ephemeral identity; delete it and create a new one`);
    }
  }

  /**
   * New key in custody; the retiring key signs the did:svc log entry and the rotation
   * announcement, then is destroyed. Addresses follow because they are bound to the did:svc.
   */
  rotate(agentId: string): Rotated {
    const row = this.#identities.row(agentId);
    this.#persistent(row, 'rotate the key of');
    if (row.status !== 'active') throw conflict(`Identity is ${row.status}`);
    const { db, custody, clock } = this.#ctx;
    return db.transaction(() => {
      const next = custody.createSigningKey('identity');
      const logHead = this.#deps.did.rotateCustodial(row.did_aw, row.key_id, next.keyId);
      const fields = { old_did: row.did_key, new_did: next.didKey, timestamp: signingTimestamp(clock) };
      const announcement = { ...fields, old_key_signature: toBase64Unpadded(custody.sign(row.key_id, rotationPayloadBytes(fields))) };
      const now = clock.now().toISOString();
      db.prepare(
        `INSERT INTO rotation_announcements (announcement_id, agent_id, old_did, new_did, timestamp, old_key_signature, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      ).run(randomUUID(), agentId, announcement.old_did, announcement.new_did, announcement.timestamp, announcement.old_key_signature, now);
      appendAgentLog(this.#ctx, agentId, { keyId: row.key_id, didKey: row.did_key }, {
        operation: 'rotate',
        old_did: row.did_key,
        new_did: next.didKey,
        metadata: { did_aw: row.did_aw, seq: logHead.seq },
      });
      db.prepare(`UPDATE agents SET key_id = ?, did_key = ?, updated_at = ? WHERE agent_id = ?`).run(next.keyId, next.didKey, now, agentId);
      custody.destroyKey(row.key_id);
      return {
        status: 'rotated' as const,
        agent_id: agentId,
        did_aw: row.did_aw,
        old_did: row.did_key,
        new_did: next.didKey,
        new_public_key: Buffer.from(publicKeyFromDidKey(next.didKey) as Uint8Array).toString('base64url'),
        custody: 'custodial' as const,
        log_head: logHead,
        rotation_announcement: announcement,
        address: this.#identities.address(this.#identities.row(agentId)),
      };
    })();
  }

  /** Deletes an ephemeral identity; a persistent one has archive and replace instead. */
  remove(agentId: string): Deleted {
    const row = this.#identities.row(agentId);
    if (row.lifetime === 'persistent') {
      throw conflict('Cannot delete a persistent identity. Use archive or replace instead.');
    }
    const { db, custody, clock } = this.#ctx;
    db.transaction(() => {
      appendAgentLog(this.#ctx, agentId, { keyId: row.key_id, didKey: row.did_key }, { operation: 'delete' });
      db.prepare(`UPDATE agents SET status = 'deleted', updated_at = ? WHERE agent_id = ?`).run(clock.now().toISOString(), agentId);
      deactivateAgentKeys(db, agentId);
      custody.destroyKey(row.key_id);
    })();
    return { agent_id: agentId, status: 'deleted' as const };
  }

  /** Stops a persistent identity taking part; history stays, no successor is claimed. */
  archive(agentId: string): Archived {
    const row = this.#identities.row(agentId);
    this.#persistent(row, 'archive');
    if (row.status !== 'active') throw conflict(`Identity is already ${row.status}`);
    const { db, clock } = this.#ctx;
    db.transaction(() => {
      appendAgentLog(this.#ctx, agentId, { keyId: row.key_id, didKey: row.did_key }, { operation: 'archive' });
      db.prepare(`UPDATE agents SET status = 'archived', updated_at = ? WHERE agent_id = ?`).run(clock.now().toISOString(), agentId);
      deactivateAgentKeys(db, agentId);
    })();
    return { agent_id: agentId, status: 'archived' as const, did_aw: row.did_aw };
  }

  /**
   * Lost-key or migration recovery: a fresh identity (new key, new did:svc) takes over the old
   * one's addresses, each reassignment vouched for by a controller-signed replacement
   * announcement. Continuity is by address, not alias.
   */
  replace(agentId: string): Replaced {
    const old = this.#identities.row(agentId);
    this.#persistent(old, 'replace');
    if (old.status === 'replaced') throw conflict('Identity was already replaced');
    const { namespaces, did } = this.#deps;
    const addresses = namespaces.addressesOf(old.did_aw);
    if (addresses.length === 0) throw conflict('Identity has no address to carry over; create a new identity instead');
    const controllers = addresses.map((a) => {
      const keyId = namespaces.controllerKeyId(a.domain);
      if (keyId === null) throw conflict(`This node does not hold the controller key of ${a.domain}; reassign ${a.address} with a controller signature`);
      return { address: a, keyId, controllerDid: namespaces.get(a.domain).controller_did };
    });
    const { db, custody, clock } = this.#ctx;
    return db.transaction(() => {
      const key = custody.createSigningKey('identity');
      const didAw = did.registerCustodial(key.keyId).did_aw;
      const now = clock.now().toISOString();
      const agentId = randomUUID();
      const alias = successorAlias(db, old.project_id, old.name ?? old.alias);
      db.prepare(
        `INSERT INTO agents (agent_id, project_id, alias, name, lifetime, key_id, did_key, did_aw, address_reachability,
           human_name, role, program, context, created_at, updated_at)
         SELECT ?, project_id, ?, name, 'persistent', ?, ?, ?, address_reachability, human_name, role, program, context, ?, ?
         FROM agents WHERE agent_id = ?`,
      ).run(agentId, alias, key.keyId, key.didKey, didAw, now, now, old.agent_id);
      const announcements = controllers.map(({ address, keyId, controllerDid }) => {
        namespaces.rebindAddress(address.domain, address.name, controllerDid, key.didKey, didAw, 'reassign_address');
        const fields = { address: address.address, controller_did: controllerDid, new_did: key.didKey, old_did: old.did_key, timestamp: signingTimestamp(clock) };
        const controller_signature = toBase64Unpadded(custody.sign(keyId, replacementPayloadBytes(fields)));
        db.prepare(
          `INSERT INTO replacement_announcements (announcement_id, domain, address_name, old_did, new_did, controller_did, timestamp, controller_signature, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        ).run(randomUUID(), address.domain, address.name, fields.old_did, fields.new_did, controllerDid, fields.timestamp, controller_signature, now);
        return { ...fields, controller_signature };
      });
      appendAgentLog(this.#ctx, agentId, key, { operation: 'create', new_did: key.didKey, metadata: { lifetime: 'persistent', did_aw: didAw, replaces: old.agent_id } });
      appendAgentLog(this.#ctx, old.agent_id, { keyId: old.key_id, didKey: old.did_key }, {
        operation: 'replaced_by',
        old_did: old.did_key,
        new_did: key.didKey,
        metadata: { successor_agent_id: agentId, addresses: addresses.map((a) => a.address) },
      });
      db.prepare(`UPDATE agents SET status = 'replaced', successor_agent_id = ?, updated_at = ? WHERE agent_id = ?`).run(agentId, now, old.agent_id);
      deactivateAgentKeys(db, old.agent_id);
      custody.destroyKey(old.key_id);
      const { apiKey } = issueApiKey(db, old.project_id, agentId, now);
      const view = this.#identities.view(this.#identities.row(agentId));
      return {
        ...view,
        status: 'replaced' as const,
        old_agent_id: old.agent_id,
        identity_status: view.status,
        api_key: apiKey,
        did: view.did_key,
        stable_id: view.did_aw,
        replacement_announcements: announcements,
      };
    })();
  }
}
