/**
 * The bundled main process's worker threads (out/main, a build of the current sources: the tests'
 * global setup makes it). A worker loads its modules itself, so none may reach the entry chunk,
 * which would run Electron's whole main process inside the worker; and the seal worker, started
 * from the bundle as the seal pool starts it, seals and signs.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { buildIsCurrent } from '../../scripts/build-app.ts';
import { openEnvelope } from '../../server/crypto/e2ee/open-envelope.ts';
import { SEAL_WORKER_ROLE, type SealReply } from '../../server/crypto/e2ee/seal-worker.ts';
import { verifyEnvelopeForIngestion } from '../../server/crypto/e2ee/verify-envelope.ts';
import { WORKER_ROLE as RENDER_WORKER_ROLE } from '../../server/markdown/worker.ts';
import { testParty } from '../support/e2ee-parties.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const MAIN = join(ROOT, 'out/main');
const ENTRY = join(MAIN, 'index.js');
const CHUNKS = join(MAIN, 'chunks');

/** The chunk whose text holds a worker's role: the module the pool starts as that worker. */
function chunkOf(role: string): string {
  const found = readdirSync(CHUNKS).filter((name) => readFileSync(join(CHUNKS, name), 'utf8').includes(JSON.stringify(role)));
  expect(found, `the chunk holding ${role}`).toHaveLength(1);
  return join(CHUNKS, found[0]!);
}

/** Every file of the bundle `file` loads, statically or dynamically, itself included. */
function reachable(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  for (const match of text.matchAll(/(?:from\s*|import\s*\(\s*)"(\.{1,2}\/[^"]+)"/g)) reachable(resolve(dirname(file), match[1]!), seen);
  return seen;
}

describe('the bundle’s worker threads', () => {
  it('is a build of the current sources', () => {
    expect(buildIsCurrent(ROOT)).toBe(true);
  });

  for (const role of [SEAL_WORKER_ROLE, RENDER_WORKER_ROLE]) {
    it(`never load the entry chunk: ${role}`, () => {
      expect([...reachable(chunkOf(role))]).not.toContain(ENTRY);
    });
  }

  it('seals and signs in the seal worker started from the bundle', async () => {
    const alice = testParty({ address: 'alice.example/alice', stableId: 'did:svc:alice' });
    const bob = testParty({ address: 'bob.example/bob', stableId: 'did:svc:bob' });
    const visible = ({ address, did, stableId, encryptionKey }: typeof alice) => ({ address, did, stableId, encryptionKey });
    const request = {
      kind: 'mail' as const,
      sender: visible(alice),
      recipients: [visible(bob)],
      subject: 'from the bundle',
      body: 'sealed in its own worker',
      messageId: crypto.randomUUID(),
      conversationId: 'c-1',
      createdAt: Date.now(),
    };
    const worker = new Worker(chunkOf(SEAL_WORKER_ROLE), { workerData: SEAL_WORKER_ROLE });
    try {
      const reply = await new Promise<SealReply>((settle, fail) => {
        worker.on('error', fail);
        worker.on('message', (message: SealReply) => {
          if (message.type === 'ready') worker.postMessage({ id: 1, request, signer: { key: alice.signingKey, did: alice.did } });
          else settle(message);
        });
      });
      expect(reply.type).toBe('sealed');
      if (reply.type !== 'sealed') return;
      const { envelope } = reply;
      verifyEnvelopeForIngestion(envelope, {
        kind: 'mail',
        messageId: request.messageId,
        conversationId: 'c-1',
        sender: { did: alice.did, stableId: alice.stableId, address: alice.address },
        recipients: [{ did: bob.did, stableId: bob.stableId, address: bob.address }],
        now: Date.now(),
      });
      expect(openEnvelope(envelope, bob.reader).inner.body).toBe('sealed in its own worker');
    } finally {
      await worker.terminate();
    }
  });
});
