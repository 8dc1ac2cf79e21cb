/**
 * A recipient's encryption key found on its own node, node to node: node B is a real node with a
 * peer listener, which serves the address and did:svc key routes the lookup asks; node A's core
 * services (in-process, a real encrypted database, the real directory and outbound client) find
 * B's identities' keys through B's peer listener, as its send path will. A key B rotates reaches A
 * once A's memory of the old one is up; a key B no longer serves (expired) is not found.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { DidKey } from '../../contract/core/did.ts';
import { Address } from '../../contract/core/namespaces.ts';
import { fromBase64Unpadded } from '../../server/crypto/encoding.ts';
import { ServiceError } from '../../server/errors.ts';
import { REMOTE_KEY_TTL_MS } from '../../server/federation/remote-encryption-keys.ts';
import type { RemoteEncryptionKey } from '../../server/surfaces/core/identities/remote-encryption-keys.ts';
import { expectOk } from '../support/expect.ts';
import { createIdentity, createNodeNamespace, createProject, persistent } from '../support/identities.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { startUnitNode, type UnitNode } from '../support/unit-node.ts';

const DAY = 24 * 60 * 60 * 1000;
let b: TestNode;
let a: UnitNode;
/** B's clock runs `offset` ms ahead of the real one. */
let offset = 0;
let carol: { agent_id: string; did_aw: string };

beforeAll(async () => {
  b = await startTestNode({ publicPort: 0, clock: { now: () => new Date(Date.now() + offset) } });
  return () => b.stop();
});
beforeAll(async () => {
  a = await startUnitNode();
  return () => a.close();
});
beforeAll(async () => {
  await createNodeNamespace(b, 'b.test');
  const project = await createProject(b, 'pb', 'b.test');
  carol = await createIdentity(b, project.api_key, persistent('carol'));
  a.services.directory.set('b.test', b.node.info.public_url!);
});

/** A's lookup: the key, or the ServiceError it refused with. */
async function find(address: string): Promise<RemoteEncryptionKey | ServiceError> {
  try {
    return await a.services.remoteEncryptionKeys.find(address);
  } catch (error) {
    if (error instanceof ServiceError) return error;
    throw error;
  }
}

/** GET from B's peer listener, where other nodes ask. */
async function fromPeerListener(path: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${b.node.info.public_url}${path}`);
  return { status: response.status, body: await response.json() };
}

describe("an identity's encryption key, asked of its node by another", () => {
  it("is what its node's peer listener serves for its address and did:svc, verified", async () => {
    const address = await fromPeerListener('/v1/namespaces/b.test/addresses/carol');
    expect(address.status).toBe(200);
    const held = Address.parse(address.body);
    expect(held.did_aw).toBe(carol.did_aw);
    const key = await fromPeerListener(`/v1/did/${encodeURIComponent(carol.did_aw)}/key`);
    expect(key.status).toBe(200);
    const served = DidKey.parse(key.body).encryption_key!;
    expect(served.identity_did).toBe(held.current_did_key);

    const found = await find('b.test/carol');
    expect(found).toMatchObject({ address: 'b.test/carol', didKey: held.current_did_key, stableId: carol.did_aw, assertion: served });
    expect((found as RemoteEncryptionKey).key.publicKey).toEqual(fromBase64Unpadded(served.encryption_public_key));
  });

  it('is the rotated one once the old one is no longer remembered', async () => {
    const before = (await find('b.test/carol')) as RemoteEncryptionKey;
    const rotated = expectOk(await b.owner('POST', `/v1/node/identities/${carol.agent_id}/encryption-key/rotate`)).encryption_key;
    expect(rotated.encryption_key_id).not.toBe(before.assertion.encryption_key_id);
    // Still the remembered one: mail sealed to it opens, B keeps the old key.
    expect(await find('b.test/carol')).toEqual(before);
    a.advance(REMOTE_KEY_TTL_MS);
    expect(await find('b.test/carol')).toMatchObject({ assertion: { ...rotated, previous_encryption_key_id: before.assertion.encryption_key_id } });
  });

  it('is not found for an address its node does not have, nor once its node no longer serves it', async () => {
    expect(await find('b.test/nobody')).toMatchObject({ statusCode: 404, code: 'SVC_ERR_RECIPIENT_NOT_FOUND' });
    // Past its expiry on B's clock, B serves no assertion for carol (it verifies what it serves).
    offset = 91 * DAY;
    a.advance(REMOTE_KEY_TTL_MS);
    expect(await find('b.test/carol')).toMatchObject({ statusCode: 409, code: 'SVC_ERR_RECIPIENT_KEY_NOT_PUBLISHED' });
    offset = 0;
  });
});
