/**
 * E2EE v2 conformance: upstream's cross-language vector, byte for byte, and a second, independent
 * implementation of the contract written here with node:crypto alone (none of the node's code), so
 * an envelope the node makes is read by something that is not the node, and the other way round.
 *
 * The independent side is test/support/e2ee-independent.ts.
 */
import { createPrivateKey, createPublicKey, diffieHellman, randomBytes, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadCrossLanguageVector, VECTOR_PATH } from '../support/e2ee-vector.ts';
import { testParty } from '../support/e2ee-parties.ts';
import { parseEnvelope } from '../../server/crypto/e2ee/envelope.ts';
import { openEnvelope } from '../../server/crypto/e2ee/open-envelope.ts';
import { sealEnvelope } from '../../server/crypto/e2ee/seal-envelope.ts';
import { readFileSync } from 'node:fs';

import {
  BASE58,
  bytesOf,
  ED_PKCS8,
  ed25519FromDidKey,
  independentDecrypt,
  independentEncrypt,
  rawX,
  signedPart,
  unb64,
  xPriv,
  xPub,
  type Obj,
  type Party,
} from '../support/e2ee-independent.ts';

// ------------------------------------------------------------------ the tests

const vector = loadCrossLanguageVector();
const { alice, bob } = vector.identities;

describe('e2ee-v2-cross-language: the bytes', () => {
  it('is the published file, unchanged', () => {
    const text = readFileSync(VECTOR_PATH, 'utf8');
    expect(text.length).toBe(11591);
    expect(text.endsWith('}\n')).toBe(true);
  });

  for (const name of ['go_mail_envelope', 'python_mail_envelope'] as const) {
    const envelope = vector[name] as Obj;
    it(`${name}: the independent reader decrypts it for bob and for alice’s sender copy`, () => {
      const forBob = independentDecrypt(envelope, unb64(bob.x25519_private));
      const forAlice = independentDecrypt(envelope, unb64(alice.x25519_private));
      expect(forAlice).toEqual(forBob);
      expect(forBob.body).toBe(name === 'go_mail_envelope' ? 'go fixture body' : 'python fixture body');
    });

    it(`${name}: the node and the independent reader agree on every decrypted field`, () => {
      const node = openEnvelope(parseEnvelope(envelope), {
        did: bob.did,
        stableId: bob.stable_id,
        address: bob.address,
        key: {
          publicKey: rawX(xPriv(unb64(bob.x25519_private))),
          agree: (peer) => diffieHellman({ privateKey: xPriv(unb64(bob.x25519_private)), publicKey: xPub(Buffer.from(peer)) }),
        },
      });
      expect(node.inner).toEqual(independentDecrypt(envelope, unb64(bob.x25519_private)));
    });
  }

  it('the Python envelope is signed over its normalised form: the empty routing fields are not covered', () => {
    const envelope = vector.python_mail_envelope as Obj;
    expect((envelope.routing as Obj).delivery_origin).toBe('');
    const { signature, ...literal } = envelope;
    const signer = ed25519FromDidKey(alice.did);
    expect(verify(null, bytesOf(literal), signer, unb64(signature as string))).toBe(false);
    expect(verify(null, bytesOf(signedPart(envelope)), signer, unb64(signature as string))).toBe(true);
  });
});

describe('the node and an independent implementation, both ways', () => {
  const now = new Date();
  const nodeAlice = testParty({ address: 'alice.example/alice', now: now.getTime() - 60_000 });
  const nodeBob = testParty({ address: 'bob.example/bob', now: now.getTime() - 60_000 });

  it('an envelope the node makes is read by the independent implementation, and its sender copy too', () => {
    const envelope = sealEnvelope(
      {
        kind: 'mail',
        sender: nodeAlice,
        recipients: [nodeBob],
        subject: 'from the node',
        body: 'sealed by svc-node ✓',
        messageId: 'm-1',
        conversationId: 'c-1',
        createdAt: now.getTime(),
      },
      nodeAlice,
    );
    const onWire = JSON.parse(JSON.stringify(envelope)) as Obj;
    expect(independentDecrypt(onWire, nodeBob.keys.privateKey)).toMatchObject({ subject: 'from the node', body: 'sealed by svc-node ✓', message_id: 'm-1' });
    expect(independentDecrypt(onWire, nodeAlice.keys.privateKey).body).toBe('sealed by svc-node ✓');
  });

  it('an envelope the independent implementation makes is read by the node, for the recipient and the sender', () => {
    const party = (p: typeof nodeAlice): Party => ({
      address: p.address!,
      did: p.did,
      signingKey: createPrivateKey({ key: Buffer.concat([ED_PKCS8, randomBytes(32)]), format: 'der', type: 'pkcs8' }),
      encryptionPublicKey: p.keys.publicKey,
    });
    // The independent sender has its own signing key; the node knows it only through the did.
    const sender = party(nodeAlice);
    const spki = createPublicKey(sender.signingKey).export({ format: 'der', type: 'spki' }).subarray(12);
    let n = BigInt(`0x${Buffer.concat([Buffer.of(0xed, 0x01), spki]).toString('hex')}`);
    let text = '';
    while (n > 0n) [text, n] = [BASE58[Number(n % 58n)] + text, n / 58n];
    sender.did = `did:key:z${text}`;
    const envelope = independentEncrypt(sender, party(nodeBob), 'from outside', 'sealed independently', now);
    const forBob = openEnvelope(parseEnvelope(envelope), nodeBob.reader);
    expect(forBob.inner).toMatchObject({ subject: 'from outside', body: 'sealed independently' });
    const forAlice = openEnvelope(parseEnvelope(envelope), { ...nodeAlice.reader, did: sender.did });
    expect(forAlice.wrapPurpose).toBe('sender_copy');
    expect(forAlice.inner).toEqual(forBob.inner);
  });
});
