/**
 * The seal worker: what it prepares is the envelope a seal in place makes (checked at ingestion,
 * opened by the recipient and by the sender's own copy), and it never stands in a send's way: it
 * declines while it starts, when its queue is full, when it refuses a request and once closed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { testParty } from '../../../test/support/e2ee-parties.ts';
import type { E2eeEnvelope } from './envelope.ts';
import { KeyAssertionError } from './errors.ts';
import { openEnvelope } from './open-envelope.ts';
import { SEAL_QUEUE_MAX, SealPool } from './seal-pool.ts';
import { sealEnvelope, signPreparedEnvelope, type PreparedEnvelope, type SealRequest } from './seal-envelope.ts';
import { verifyEnvelopeForIngestion } from './verify-envelope.ts';
import { publicKeyFromDidKey } from '../did-key.ts';
import { verifyBytes } from '../ed25519.ts';

const alice = testParty({ address: 'alice.example/alice', stableId: 'did:svc:alice' });
const bob = testParty({ address: 'bob.example/bob', stableId: 'did:svc:bob' });

const request = (overrides: Partial<SealRequest> = {}): SealRequest => ({
  kind: 'mail',
  sender: alice,
  recipients: [bob],
  subject: 'Déjà vu',
  body: 'sealed beside the event loop 🙂',
  messageId: crypto.randomUUID(),
  conversationId: 'c-1',
  createdAt: Date.now(),
  ...overrides,
});

// Only the parties' public fields cross to the worker (a function cannot, and needs not).
const publicParty = ({ address, did, stableId, encryptionKey }: typeof alice) => ({ address, did, stableId, encryptionKey });
const crossing = (overrides: Partial<SealRequest> = {}): SealRequest => request({ sender: publicParty(alice), recipients: [publicParty(bob)], ...overrides });

/** Checks `envelope` as a node checks alice's mail to bob at ingestion (throws when it would refuse it). */
const ingests = (envelope: E2eeEnvelope, messageId: string): void =>
  verifyEnvelopeForIngestion(envelope, {
    kind: 'mail',
    messageId,
    conversationId: 'c-1',
    sender: { did: alice.did, stableId: alice.stableId, address: alice.address },
    recipients: [{ did: bob.did, stableId: bob.stableId, address: bob.address }],
    now: Date.now(),
  });

const pools: SealPool[] = [];
afterEach(async () => {
  for (const pool of pools.splice(0)) await pool.close();
});

function newPool(): SealPool {
  const pool = new SealPool();
  pools.push(pool);
  return pool;
}

/** Asks until the pool's worker prepares (it declines until it is ready). */
async function untilReady(pool: SealPool): Promise<SealPool> {
  for (let tries = 0; tries < 300; tries++) {
    if ((await pool.prepare(crossing())) !== null) return pool;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the seal worker never became ready');
}

const readyPool = (): Promise<SealPool> => untilReady(newPool());

describe('SealPool', () => {
  it('declines while its worker starts, then prepares in the worker', async () => {
    const pool = newPool();
    expect(await pool.prepare(crossing())).toBeNull();
    expect(pool.stats).toMatchObject({ prepared: 0, declined: 1 });
    await untilReady(pool);
    expect(pool.stats.workers_started).toBe(1);
    expect(pool.stats.prepared).toBe(1);
  });

  it('prepares the envelope a seal in place makes: checked at ingestion, opened by the recipient and by the sender’s copy', async () => {
    const pool = await readyPool();
    const asked = crossing();
    const prepared = (await pool.prepare(asked)) as PreparedEnvelope;
    expect(prepared).not.toBeNull();
    const envelope = signPreparedEnvelope(prepared, alice);
    ingests(envelope, asked.messageId);
    const read = openEnvelope(envelope, bob.reader);
    expect(read.inner).toMatchObject({ subject: 'Déjà vu', body: 'sealed beside the event loop 🙂' });
    expect(openEnvelope(envelope, alice.reader)).toMatchObject({ wrapPurpose: 'sender_copy', inner: { body: read.inner.body } });
    // The same request sealed in place differs only where a seal is fresh every time: its keys and nonce.
    const inPlace = sealEnvelope({ ...asked, sender: alice, recipients: [bob] }, alice);
    expect(Object.keys(envelope).sort()).toEqual(Object.keys(inPlace).sort());
    expect(envelope.recipients).toEqual(inPlace.recipients.map((r, i) => ({ ...r, wrap_id: envelope.recipients[i]!.wrap_id })));
  });

  it('signs in the worker with a key lent for the job: the envelope, and the bytes asked beside it', async () => {
    const pool = await readyPool();
    const asked = crossing();
    const beside = Buffer.from('the plaintext signature’s bytes');
    const made = await pool.seal(asked, { key: alice.signingKey, did: alice.did, alsoSign: beside });
    expect(made?.envelope.signature).toBeTypeOf('string');
    ingests(made!.envelope, asked.messageId);
    expect(verifyBytes(publicKeyFromDidKey(alice.did)!, beside, made!.alsoSignature!)).toBe(true);
  });

  it('signs nothing with a lent key that is not the sender’s', async () => {
    const pool = await readyPool();
    expect(await pool.seal(crossing(), { key: bob.signingKey, did: bob.did })).toBeNull();
  });

  it('is signed only by the key of the sender it names', async () => {
    const pool = await readyPool();
    const prepared = (await pool.prepare(crossing())) as PreparedEnvelope;
    expect(() => signPreparedEnvelope(prepared, bob)).toThrow(/signing key does not belong/);
  });

  it('declines a request it refuses, which the caller’s own seal then refuses with the reason', async () => {
    const pool = await readyPool();
    const forged = { ...publicParty(bob), encryptionKey: { ...bob.encryptionKey, encryption_public_key: alice.encryptionKey.encryption_public_key } };
    const asked = crossing({ recipients: [forged] });
    expect(await pool.prepare(asked)).toBeNull();
    expect(() => sealEnvelope(asked, alice)).toThrow(KeyAssertionError);
    expect(pool.stats.declined).toBeGreaterThanOrEqual(1);
  });

  it('declines beyond its queue, so a flood of sends seals on its own thread instead of waiting', async () => {
    const pool = await readyPool();
    const answers = await Promise.all(Array.from({ length: SEAL_QUEUE_MAX + 10 }, () => pool.prepare(crossing())));
    expect(answers.filter((answer) => answer === null)).toHaveLength(10);
    expect(answers.slice(0, SEAL_QUEUE_MAX).every((answer) => answer !== null)).toBe(true);
  });

  it('answers what waits with null when closed, and starts a new worker for the next seals', async () => {
    const pool = await readyPool();
    const waiting = pool.prepare(crossing());
    await pool.close();
    expect(await waiting).toBeNull();
    expect(await pool.prepare(crossing())).toBeNull();
    await untilReady(pool);
    expect(pool.stats.workers_started).toBe(2);
  });
});
