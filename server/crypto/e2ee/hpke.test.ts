/**
 * The HPKE layer against RFC 9180's own vectors, independently of upstream's E2EE vector.
 *
 * RFC 9180 publishes no vector for DHKEM(X25519, HKDF-SHA256) with AES-256-GCM (the E2EE suite).
 * Appendix A.1 has the same KEM and KDF with AES-128-GCM, so it pins the DH, ExtractAndExpand,
 * LabeledExtract/LabeledExpand, the key schedule and the nonce sequence; with the AEAD id and key
 * length as the only difference, the AES-256-GCM suite follows. Upstream's vector (key wraps that
 * upstream's Go and Python made) then proves that suite end to end, in envelope-open.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { HPKE_X25519_SHA256_AES128GCM, HPKE_X25519_SHA256_AES256GCM, setupBaseRecipient, setupBaseSender } from './hpke.ts';
import { agreementFromPrivateKey, generateX25519KeyPair, x25519PublicKey } from './x25519.ts';

const hex = (text: string): Buffer => Buffer.from(text, 'hex');

// RFC 9180 Appendix A.1.1: DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, AES-128-GCM, base mode.
const A11 = {
  info: hex('4f6465206f6e2061204772656369616e2055726e'), // "Ode on a Grecian Urn"
  skEm: hex('52c4a758a802cd8b936eceea314432798d5baf2d7e9235dc084ab1b9cfa2f736'),
  pkEm: hex('37fda3567bdbd628e88668c3c8d7e97d1d1253b6d4ea6d44c150f741f1bf4431'),
  skRm: hex('4612c550263fc8ad58375df3f557aac531d26850903e55a9f23f21d8534e8ac8'),
  pkRm: hex('3948cfe0ad1ddb695d780e59077195da6c56506b027329794ab02bca80815c4d'),
  enc: hex('37fda3567bdbd628e88668c3c8d7e97d1d1253b6d4ea6d44c150f741f1bf4431'),
  sharedSecret: hex('fe0e18c9f024ce43799ae393c7e8fe8fce9d218875e8227b0187c04e7d2ea1fc'),
  keyScheduleContext: hex('00725611c9d98c07c03f60095cd32d400d8347d45ed67097bbad50fc56da742d07cb6cffde367bb0565ba28bb02c90744a20f5ef37f30523526106f637abb05449'),
  secret: hex('12fff91991e93b48de37e7daddb52981084bd8aa64289c3788471d9a9712f397'),
  key: hex('4531685d41d65f03dc48f6b8302c05b0'),
  baseNonce: hex('56d890e5accaaf011cff4b7d'),
  exporterSecret: hex('45ff1c2e220db587171952c0592d5f5ebe103f1561a2614e38f2ffd47e99e3f8'),
  plaintext: hex('4265617574792069732074727574682c20747275746820626561757479'), // "Beauty is truth, truth beauty"
  encryptions: [
    { aad: hex('436f756e742d30'), ct: hex('f938558b5d72f1a23810b4be2ab4f84331acc02fc97babc53a52ae8218a355a96d8770ac83d07bea87e13c512a') },
    { aad: hex('436f756e742d31'), ct: hex('af2d7e9ac9ae7e270f46ba1f975be53c09f8d875bdc8535458c2494e8a6eab251c03d0c22a56b8ca42c2063b84') },
    { aad: hex('436f756e742d32'), ct: hex('498dfcabd92e8acedc281e85af1cb4e3e31c7dc394a1ca20e173cb72516491588d96a19ad4a683518973dcc180') },
  ],
};

describe('HPKE base mode, RFC 9180 Appendix A.1.1', () => {
  it('derives the vector public keys from its private keys', () => {
    expect(x25519PublicKey(A11.skEm)).toEqual(A11.pkEm);
    expect(x25519PublicKey(A11.skRm)).toEqual(A11.pkRm);
  });

  it('the sender reaches the vector enc, shared secret and key schedule', () => {
    const { enc, context } = setupBaseSender(HPKE_X25519_SHA256_AES128GCM, A11.pkRm, A11.info, A11.skEm);
    expect(enc).toEqual(A11.enc);
    expect(context.schedule.sharedSecret).toEqual(A11.sharedSecret);
    expect(context.schedule.keyScheduleContext).toEqual(A11.keyScheduleContext);
    expect(context.schedule.secret).toEqual(A11.secret);
    expect(context.schedule.key).toEqual(A11.key);
    expect(context.schedule.baseNonce).toEqual(A11.baseNonce);
    expect(context.schedule.exporterSecret).toEqual(A11.exporterSecret);
  });

  it('seals the vector ciphertexts at sequence numbers 0, 1 and 2', () => {
    const { context } = setupBaseSender(HPKE_X25519_SHA256_AES128GCM, A11.pkRm, A11.info, A11.skEm);
    for (const { aad, ct } of A11.encryptions) expect(context.seal(aad, A11.plaintext)).toEqual(ct);
  });

  it('the recipient reaches the same schedule from enc and opens the vector ciphertexts', () => {
    const context = setupBaseRecipient(HPKE_X25519_SHA256_AES128GCM, A11.enc, agreementFromPrivateKey(A11.skRm), A11.info);
    expect(context.schedule.sharedSecret).toEqual(A11.sharedSecret);
    expect(context.schedule.key).toEqual(A11.key);
    for (const { aad, ct } of A11.encryptions) expect(context.open(aad, ct)).toEqual(A11.plaintext);
  });

  it('the AES-256-GCM suite shares the KEM secret but derives its own 32-byte key', () => {
    const { context } = setupBaseSender(HPKE_X25519_SHA256_AES256GCM, A11.pkRm, A11.info, A11.skEm);
    expect(context.schedule.sharedSecret).toEqual(A11.sharedSecret);
    expect(context.schedule.key).toHaveLength(32);
    expect(context.schedule.key.subarray(0, 16)).not.toEqual(A11.key);
  });
});

describe('HPKE with the E2EE suite', () => {
  it('round-trips with a fresh ephemeral key, and refuses a changed ciphertext, aad or info', () => {
    const recipient = generateX25519KeyPair();
    const info = Buffer.from('info');
    const { enc, context } = setupBaseSender(HPKE_X25519_SHA256_AES256GCM, recipient.publicKey, info);
    const sealed = context.seal(Buffer.alloc(0), Buffer.from('content key'));
    const agreement = agreementFromPrivateKey(recipient.privateKey);
    expect(setupBaseRecipient(HPKE_X25519_SHA256_AES256GCM, enc, agreement, info).open(Buffer.alloc(0), sealed).toString()).toBe('content key');

    const flipped = Buffer.from(sealed);
    flipped[0]! ^= 1;
    expect(() => setupBaseRecipient(HPKE_X25519_SHA256_AES256GCM, enc, agreement, info).open(Buffer.alloc(0), flipped)).toThrow();
    expect(() => setupBaseRecipient(HPKE_X25519_SHA256_AES256GCM, enc, agreement, info).open(Buffer.from('x'), sealed)).toThrow();
    expect(() => setupBaseRecipient(HPKE_X25519_SHA256_AES256GCM, enc, agreement, Buffer.from('other')).open(Buffer.alloc(0), sealed)).toThrow();
  });

  it('refuses a low-order encapsulated key (the all-zero DH output)', () => {
    const agreement = agreementFromPrivateKey(generateX25519KeyPair().privateKey);
    expect(() => setupBaseRecipient(HPKE_X25519_SHA256_AES256GCM, Buffer.alloc(32), agreement, Buffer.alloc(0))).toThrow();
  });
});
