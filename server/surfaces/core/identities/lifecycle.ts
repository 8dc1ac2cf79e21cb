/**
 * Identity lifecycle (spec §3): key rotation, deletion of ephemeral identities, and the hosted
 * archive / replace transitions of persistent ones.
 */
import { randomUUID } from 'node:crypto';
import { deactivateAgentKeys } from '../../../auth/api-key-store.ts';
import { issueApiKey } from '../../../auth/api-keys.ts';
import { signingTimestamp } from '../../../clock.ts';
import type { NodeContext } from '../../../context.ts';
import { replacementPayloadBytes, rotationPayloadBytes } from '../../../crypto/announcements.ts';
import { publicKeyFromDidKey } from '../../../crypto/did-key.ts';
import { toBase64Unpadded } from '../../../crypto/encoding.ts';
import { conflict, invalid } from '../../../errors.ts';
import { insertReplacementAnnouncement } from '../namespaces/store.ts';
import { appendAgentLog } from './agent-log.ts';
import { successorAlias } from './domain/aliases.ts';
import type { CoreDeps, IdentityService } from './service.ts';
import {
  aliasTaken,
  identityContext,
  insertIdentity,
  insertRotationAnnouncement,
  markIdentityReplaced,
  setIdentityKey,
  setIdentityStatus,
  type AgentRow,
} from './store/agents.ts';
import type { Archived, Deleted, Replaced, ReplaceInput, Rotated } from '../../../../contract/core/identities.ts';

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
      throw conflict('SVC_ERR_IDENTITY_WRONG_LIFETIME', `Cannot ${action} an ephemeral identity; delete it and create a new one`);
    }
  }

  /**
   * New key in custody; the retiring key signs the did:svc log entry and the rotation
   * announcement, then is destroyed. Addresses follow because they are bound to the did:svc.
   */
  rotate(agentId: string): Rotated {
    const row = this.#identities.row(agentId);
    this.#persistent(row, 'rotate the key of');
    if (row.custody === 'self') {
      throw conflict(
        'SVC_ERR_IDENTITY_SELF_CUSTODIAL',
        `This identity is self-custodial: the node holds no key to rotate it with. Rotate it yourself: PUT /v1/did/${row.did_aw} with a rotate_key entry signed by the retiring key`,
      );
    }
    if (row.status !== 'active') throw conflict('SVC_ERR_IDENTITY_NOT_ACTIVE', `Identity is ${row.status}`);
    const { db, custody, clock } = this.#ctx;
    return db.transaction(() => {
      const next = custody.createSigningKey('identity');
      const logHead = this.#deps.did.rotateCustodial(row.did_aw, row.key_id, next.keyId);
      const fields = { old_did: row.did_key, new_did: next.didKey, timestamp: signingTimestamp(clock) };
      const announcement = { ...fields, old_key_signature: toBase64Unpadded(custody.sign(row.key_id, rotationPayloadBytes(fields))) };
      const now = clock.now().toISOString();
      insertRotationAnnouncement(db, { announcement_id: randomUUID(), agent_id: agentId, ...announcement, created_at: now });
      appendAgentLog(
        this.#ctx,
        agentId,
        { keyId: row.key_id, didKey: row.did_key },
        {
          operation: 'rotate',
          old_did: row.did_key,
          new_did: next.didKey,
          metadata: { did_aw: row.did_aw, seq: logHead.seq },
        },
      );
      setIdentityKey(db, agentId, next, now);
      // The encryption key stays; its assertion names the identity's did:key, so the new key signs it.
      this.#identities.encryptionKeys.resign(agentId);
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
      throw conflict('SVC_ERR_IDENTITY_WRONG_LIFETIME', 'Cannot delete a persistent identity. Use archive or replace instead.');
    }
    const { db, custody, clock } = this.#ctx;
    db.transaction(() => {
      appendAgentLog(this.#ctx, agentId, { keyId: row.key_id, didKey: row.did_key }, { operation: 'delete' });
      setIdentityStatus(db, agentId, 'deleted', clock.now().toISOString());
      deactivateAgentKeys(db, agentId);
      if (row.key_id !== '') custody.destroyKey(row.key_id);
      this.#identities.encryptionKeys.destroyAll(agentId);
    })();
    return { agent_id: agentId, status: 'deleted' as const };
  }

  /** Stops a persistent identity taking part; history stays, no successor is claimed. */
  archive(agentId: string): Archived {
    const row = this.#identities.row(agentId);
    this.#persistent(row, 'archive');
    if (row.status !== 'active') throw conflict('SVC_ERR_IDENTITY_NOT_ACTIVE', `Identity is already ${row.status}`);
    const { db, clock } = this.#ctx;
    db.transaction(() => {
      appendAgentLog(this.#ctx, agentId, { keyId: row.key_id, didKey: row.did_key }, { operation: 'archive' });
      setIdentityStatus(db, agentId, 'archived', clock.now().toISOString());
      deactivateAgentKeys(db, agentId);
    })();
    return { agent_id: agentId, status: 'archived' as const, did_aw: row.did_aw };
  }

  /**
   * Lost-key or migration recovery: a fresh identity (new key, new did:svc) takes over the old
   * one's addresses, each reassignment vouched for by a controller-signed replacement
   * announcement. Continuity is by address, not alias.
   *
   * Who holds the successor's key is the caller's word (`input.custody`): the node (custodial,
   * the default for a custodial identity), or the client, which brings the new key and has
   * registered its did:svc (`self`). A self-custodial identity's replacement must say which:
   * the node never takes custody of what was the client's unasked.
   */
  replace(agentId: string, input: ReplaceInput = {}): Replaced {
    const old = this.#identities.row(agentId);
    this.#persistent(old, 'replace');
    if (old.status === 'replaced') throw conflict('SVC_ERR_IDENTITY_REPLACED', 'Identity was already replaced');
    const custodyOfSuccessor = input.custody ?? (old.custody === 'self' ? null : 'custodial');
    if (custodyOfSuccessor === null) {
      throw invalid(
        'SVC_ERR_REPLACEMENT_CUSTODY_REQUIRED',
        'This identity is self-custodial: say who holds its successor\'s key. custody "self" with the new key\'s did and public_key (register its did:svc first: POST /v1/did), or custody "custodial" for a key the node makes and holds',
      );
    }
    const self = custodyOfSuccessor === 'self' ? this.#identities.clientKey(input, 'persistent') : null;
    const { namespaces, did } = this.#deps;
    const addresses = namespaces.addressesOf(old.did_aw);
    if (addresses.length === 0) throw conflict('SVC_ERR_IDENTITY_NO_ADDRESS', 'Identity has no address to carry over; create a new identity instead');
    const controllers = addresses.map((a) => {
      const keyId = namespaces.controllerKeyId(a.domain);
      if (keyId === null)
        throw conflict(
          'SVC_ERR_CONTROLLER_KEY_NOT_HELD',
          `This node does not hold the controller key of ${a.domain}; reassign ${a.address} with a controller signature`,
        );
      return { address: a, keyId, controllerDid: namespaces.get(a.domain).controller_did };
    });
    const { db, custody, clock } = this.#ctx;
    return db.transaction(() => {
      // A self-custodial successor's key stays with its client (key_id ''), its did:svc registered by it.
      const key = self === null ? custody.createSigningKey('identity') : { keyId: '', didKey: self.didKey };
      const didAw = self?.didAw ?? did.registerCustodial(key.keyId).did_aw;
      const now = clock.now().toISOString();
      const agentId = randomUUID();
      // The successor carries the old identity's name and settings under a fresh key and did:svc.
      insertIdentity(db, {
        agent_id: agentId,
        project_id: old.project_id,
        alias: successorAlias(old.name ?? old.alias, (alias) => aliasTaken(db, old.project_id, alias)),
        name: old.name,
        lifetime: 'persistent',
        custody: self === null ? 'custodial' : 'self',
        key_id: key.keyId,
        did_key: key.didKey,
        did_aw: didAw,
        address_reachability: old.address_reachability,
        accepts_plaintext: old.accepts_plaintext,
        human_name: old.human_name,
        role: old.role,
        program: old.program,
        context: identityContext(old),
        created_at: now,
        updated_at: now,
      });
      const announcements = controllers.map(({ address, keyId, controllerDid }) => {
        namespaces.rebindAddress(address.domain, address.name, controllerDid, key.didKey, didAw, 'reassign_address');
        const fields = {
          address: address.address,
          controller_did: controllerDid,
          new_did: key.didKey,
          old_did: old.did_key,
          timestamp: signingTimestamp(clock),
        };
        const controller_signature = toBase64Unpadded(custody.sign(keyId, replacementPayloadBytes(fields)));
        insertReplacementAnnouncement(db, {
          announcement_id: randomUUID(),
          domain: address.domain,
          address_name: address.name,
          old_did: fields.old_did,
          new_did: fields.new_did,
          controller_did: controllerDid,
          timestamp: fields.timestamp,
          controller_signature,
          created_at: now,
        });
        return { ...fields, controller_signature };
      });
      appendAgentLog(this.#ctx, agentId, key, {
        operation: 'create',
        new_did: key.didKey,
        metadata: { lifetime: 'persistent', did_aw: didAw, replaces: old.agent_id, custody: self === null ? 'custodial' : 'self' },
      });
      appendAgentLog(
        this.#ctx,
        old.agent_id,
        { keyId: old.key_id, didKey: old.did_key },
        {
          operation: 'replaced_by',
          old_did: old.did_key,
          new_did: key.didKey,
          metadata: { successor_agent_id: agentId, addresses: addresses.map((a) => a.address) },
        },
      );
      // The successor gets keys of its own; the old identity's stay archived in custody, so what
      // was sealed to it stays readable, and are no longer served (it is replaced).
      if (self === null) this.#identities.encryptionKeys.create(agentId);
      markIdentityReplaced(db, old.agent_id, agentId, now);
      deactivateAgentKeys(db, old.agent_id);
      if (old.key_id !== '') custody.destroyKey(old.key_id);
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
