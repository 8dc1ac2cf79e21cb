/**
 * Identities' encryption keys through the core services on a real encrypted database: made with
 * the identity, renewed as the node's clock nears expiry, rotated with the old key still able to
 * agree, re-signed when the signing key rotates, made at the sweep for identities without one,
 * and destroyed with a deleted identity.
 */
import { randomBytes } from 'node:crypto';
import SQLite from 'better-sqlite3-multiple-ciphers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { didKeyFromPublicKey } from '../../../crypto/did-key.ts';
import { privateKeyFromSeed, rawPublicKey } from '../../../crypto/ed25519.ts';
import { parseContractTime } from '../../../crypto/e2ee/encoding.ts';
import { verifyKeyAssertion, type EncryptionKeyAssertion } from '../../../crypto/e2ee/key-assertion.ts';
import { agreementFromPrivateKey, generateX25519KeyPair } from '../../../crypto/e2ee/x25519.ts';
import { fromBase64Unpadded } from '../../../crypto/encoding.ts';
import { startUnitNode, type UnitNode } from '../../../../test/support/unit-node.ts';
import { RENEW_BEFORE_EXPIRY_MS } from './domain/encryption-key-health.ts';

const DAY = 24 * 60 * 60 * 1000;
let node: UnitNode;
let projectId: string;

beforeEach(async () => {
  node = await startUnitNode();
  projectId = node.services.projects.create({ slug: 'keys' }).project_id;
});
afterEach(() => node.close());

const keys = () => node.services.encryptionKeys;
const row = (agentId: string) => node.services.identities.row(agentId);
const now = () => node.ctx.clock.now().getTime();

function verified(agentId: string): { assertion: EncryptionKeyAssertion; publicKey: Buffer } {
  const assertion = keys().current(row(agentId));
  expect(assertion).not.toBeNull();
  const { publicKey } = verifyKeyAssertion(assertion!, { currentDidKey: row(agentId).did_key, stableId: row(agentId).did_aw, now: now() });
  return { assertion: assertion!, publicKey };
}

/** The key behind an assertion agrees as its public key says: what a sender's HPKE relies on. */
function agreesAs(agentId: string, assertion: EncryptionKeyAssertion): boolean {
  const peer = generateX25519KeyPair();
  const ours = keys().agreement(agentId, assertion.encryption_key_id)!.agree(peer.publicKey);
  return ours.equals(agreementFromPrivateKey(peer.privateKey).agree(fromBase64Unpadded(assertion.encryption_public_key)!));
}

describe('identity encryption keys', () => {
  it('are made with a persistent identity: self custody, its did:key and did:svc, 90 days', () => {
    const id = node.services.identities.create(projectId, { name: 'ann', lifetime: 'persistent' });
    const { assertion } = verified(id.agent_id);
    expect(assertion).toMatchObject({ identity_did: id.did_key, identity_stable_id: id.did_aw, custody: 'self' });
    expect(assertion.previous_encryption_key_id).toBeUndefined();
    expect(parseContractTime(assertion.expires_at)! - parseContractTime(assertion.created_at)!).toBe(90 * DAY);
    expect(agreesAs(id.agent_id, assertion)).toBe(true);
  });

  it('are made with an ephemeral identity, without a stable id', () => {
    const id = node.services.identities.create(projectId, { alias: 'eph' });
    expect(verified(id.agent_id).assertion.identity_stable_id).toBeUndefined();
  });

  it('rotate: the new assertion links the previous key, and the archived key still agrees', () => {
    const id = node.services.identities.create(projectId, { name: 'bob', lifetime: 'persistent' });
    const first = verified(id.agent_id).assertion;
    const rotated = keys().rotate(id.agent_id).encryption_key;
    expect(rotated.encryption_key_id).not.toBe(first.encryption_key_id);
    expect(rotated.previous_encryption_key_id).toBe(first.encryption_key_id);
    expect(verified(id.agent_id).assertion).toEqual(rotated);
    expect(agreesAs(id.agent_id, first)).toBe(true);
    expect(agreesAs(id.agent_id, rotated)).toBe(true);
  });

  it('renew when the node’s clock is within 15 days of expiry, keeping the key', () => {
    const id = node.services.identities.create(projectId, { name: 'cat', lifetime: 'persistent' });
    const first = verified(id.agent_id).assertion;
    node.advance(90 * DAY - RENEW_BEFORE_EXPIRY_MS - DAY);
    expect(keys().sweep()).toEqual({ created: 0, renewed: 0 });
    node.advance(2 * DAY);
    expect(keys().sweep()).toEqual({ created: 0, renewed: 1 });
    const renewed = verified(id.agent_id).assertion;
    expect(renewed.encryption_key_id).toBe(first.encryption_key_id);
    expect(parseContractTime(renewed.expires_at)!).toBeGreaterThan(parseContractTime(first.expires_at)!);
    expect(keys().sweep()).toEqual({ created: 0, renewed: 0 });
  });

  it('renew one identity even when another cannot be (its signing key is gone), and say which failed', () => {
    const broken = node.services.identities.create(projectId, { name: 'ivy', lifetime: 'persistent' });
    const fine = node.services.identities.create(projectId, { name: 'jay', lifetime: 'persistent' });
    node.ctx.custody.destroyKey(row(broken.agent_id).key_id);
    node.advance(80 * DAY);
    const failed: string[] = [];
    expect(keys().sweep((_error, agentId) => failed.push(agentId))).toEqual({ created: 0, renewed: 1 });
    expect(failed).toEqual([broken.agent_id]);
    expect(parseContractTime(verified(fine.agent_id).assertion.expires_at)! - now()).toBeGreaterThan(89 * DAY);
  });

  it('are not served once expired (a node that was off past the expiry), and the sweep renews them', () => {
    const id = node.services.identities.create(projectId, { name: 'dan', lifetime: 'persistent' });
    node.advance(91 * DAY);
    expect(keys().current(row(id.agent_id))).toBeNull();
    keys().sweep();
    verified(id.agent_id);
  });

  it('are served again from what was served, until the table is written, even by another connection, or the time leaves the window', () => {
    const id = node.services.identities.create(projectId, { name: 'fay', lifetime: 'persistent' });
    const first = verified(id.agent_id).assertion;
    // Held: the very object served before, with no row read again.
    expect(keys().current(row(id.agent_id))).toBe(first);
    // Rotated here: the new key at once.
    const rotated = keys().rotate(id.agent_id).encryption_key;
    expect(keys().current(row(id.agent_id))?.encryption_key_id).toBe(rotated.encryption_key_id);
    expect(rotated.encryption_key_id).not.toBe(first.encryption_key_id);
    // Archived by a tool beside the node, on a connection of its own: no key served any more.
    const file = node.ctx.db.name;
    const other = new SQLite(file);
    try {
      other.pragma("cipher='sqlcipher'");
      other.pragma('legacy=4');
      other.pragma(`key="x'${node.ctx.custody.databaseKey().toString('hex')}'"`);
      other
        .prepare('UPDATE identity_encryption_keys SET archived_at = ? WHERE agent_id = ? AND archived_at IS NULL')
        .run(new Date(now()).toISOString(), id.agent_id);
    } finally {
      other.close();
    }
    expect(keys().current(row(id.agent_id))).toBeNull();
    // Renewed, served, then the clock past its expiry: refused, never served from what was held.
    keys().sweep();
    expect(verified(id.agent_id).assertion.encryption_key_id).not.toBe(rotated.encryption_key_id);
    node.advance(91 * DAY);
    expect(keys().current(row(id.agent_id))).toBeNull();
  });

  it('are re-signed by the new key when the identity’s signing key rotates', () => {
    const id = node.services.identities.create(projectId, { name: 'eve', lifetime: 'persistent' });
    const first = verified(id.agent_id).assertion;
    const rotated = node.services.lifecycle.rotate(id.agent_id);
    const after = verified(id.agent_id).assertion;
    expect(after.identity_did).toBe(rotated.new_did);
    expect(after.encryption_key_id).toBe(first.encryption_key_id);
  });

  it('are made by the sweep for a custodial identity that has none (one older than keys)', () => {
    const id = node.services.identities.create(projectId, { name: 'fay', lifetime: 'persistent' });
    node.ctx.db.prepare('DELETE FROM identity_encryption_keys WHERE agent_id = ?').run(id.agent_id);
    expect(keys().current(row(id.agent_id))).toBeNull();
    expect(keys().sweep()).toEqual({ created: 1, renewed: 0 });
    verified(id.agent_id);
  });

  it('are destroyed with a deleted ephemeral identity', () => {
    const id = node.services.identities.create(projectId, { alias: 'gone' });
    verified(id.agent_id);
    const keyId = (node.ctx.db.prepare('SELECT key_id FROM identity_encryption_keys WHERE agent_id = ?').get(id.agent_id) as { key_id: string }).key_id;
    node.services.lifecycle.remove(id.agent_id);
    expect(() => node.ctx.custody.agree(keyId, generateX25519KeyPair().publicKey)).toThrow(/destroyed/);
  });

  it('are neither made nor rotated by the node for a self-custodial identity (its client holds its key)', () => {
    const signing = privateKeyFromSeed(randomBytes(32));
    const publicKey = rawPublicKey(signing);
    const id = node.services.identities.create(projectId, {
      alias: 'selfie',
      custody: 'self',
      did: didKeyFromPublicKey(publicKey),
      public_key: publicKey.toString('base64'),
    });
    expect(keys().current(row(id.agent_id))).toBeNull();
    expect(keys().sweep()).toEqual({ created: 0, renewed: 0 });
    expect(() => keys().rotate(id.agent_id)).toThrow(expect.objectContaining({ code: 'SVC_ERR_IDENTITY_SELF_CUSTODIAL' }));
  });

  it('travel in the identity backup: restored on another node, every key still agrees as before, the current one re-published', async () => {
    const id = node.services.identities.create(projectId, { name: 'hal', lifetime: 'persistent' });
    const first = verified(id.agent_id).assertion;
    const second = keys().rotate(id.agent_id).encryption_key;
    const backup = node.services.backups.export(id.agent_id, 'a long backup passphrase');
    expect(backup.encryption_keys?.assertions.map((a) => a.encryption_key_id)).toEqual([first.encryption_key_id, second.encryption_key_id]);
    expect(JSON.stringify(backup)).not.toMatch(/private/);

    const other = await startUnitNode();
    try {
      const project = other.services.projects.create({ slug: 'restored' }).project_id;
      other.services.backups.import(project, JSON.parse(JSON.stringify(backup)), 'a long backup passphrase');
      const restored = other.services.encryptionKeys.current(other.services.identities.row(id.agent_id))!;
      expect(restored.encryption_key_id).toBe(second.encryption_key_id);
      expect(restored.previous_encryption_key_id).toBe(first.encryption_key_id);
      const peer = generateX25519KeyPair();
      for (const assertion of [first, second]) {
        const here = keys().agreement(id.agent_id, assertion.encryption_key_id)!.agree(peer.publicKey);
        expect(other.services.encryptionKeys.agreement(id.agent_id, assertion.encryption_key_id)!.agree(peer.publicKey).equals(here)).toBe(true);
      }
    } finally {
      other.close();
    }
  });
});
