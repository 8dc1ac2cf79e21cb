/**
 * The bundled main process's worker threads (out/main, a build of the current sources: the tests'
 * global setup makes it). A worker loads its modules itself, so none may reach the entry chunk,
 * which would run Electron's whole main process inside the worker; the seal worker, started from
 * the bundle as the seal pool starts it, seals and signs; and the snapshot worker, started from
 * the bundle as a backup starts it, reads an encrypted database over its own connection and
 * writes its chunks, which open under the backup's keys.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { buildIsCurrent } from '../../scripts/build-app.ts';
import { openEnvelope } from '../../server/crypto/e2ee/open-envelope.ts';
import { SEAL_WORKER_ROLE, type SealReply } from '../../server/crypto/e2ee/seal-worker.ts';
import { verifyEnvelopeForIngestion } from '../../server/crypto/e2ee/verify-envelope.ts';
import { WORKER_ROLE as RENDER_WORKER_ROLE } from '../../server/markdown/worker.ts';
import { openChunk } from '../../server/recovery/backup/chunks.ts';
import { BackupFolder } from '../../server/recovery/backup/folder.ts';
import { backupKeys } from '../../server/recovery/backup/keys.ts';
import { SNAPSHOT_WORKER_ROLE, type SnapshotJob, type SnapshotReply } from '../../server/recovery/backup/snapshot-worker.ts';
import { closeDatabase, openDatabase } from '../../server/store/database.ts';
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

  for (const role of [SEAL_WORKER_ROLE, RENDER_WORKER_ROLE, SNAPSHOT_WORKER_ROLE]) {
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

  it('reads a database and writes its sealed chunks in the snapshot worker started from the bundle', async () => {
    const root = mkdtempSync(join(tmpdir(), 'svc-bundle-snapshot-'));
    const key = randomBytes(32);
    const keys = backupKeys(randomBytes(32));
    const db = openDatabase({ file: join(root, 'node.db'), key });
    const dir = join(root, 'backups');
    const worker = new Worker(chunkOf(SNAPSHOT_WORKER_ROLE), {
      workerData: {
        role: SNAPSHOT_WORKER_ROLE,
        source: { file: db.name, key },
        limit: 1024 ** 3,
        dir,
        chunkKey: keys.chunk,
        nameKey: keys.name,
      } satisfies SnapshotJob,
    });
    try {
      await new BackupFolder(dir).prepare('check');
      const reply = await new Promise<SnapshotReply>((settle, fail) => {
        worker.on('error', fail);
        worker.on('message', (message: SnapshotReply) => {
          if (message.type === 'done' || message.type === 'failed') settle(message);
        });
      });
      expect(reply.type).toBe('done');
      if (reply.type !== 'done') return;
      expect(reply.pageSize * reply.pageCount).toBe(
        (db.pragma('page_size', { simple: true }) as number) * (db.pragma('page_count', { simple: true }) as number),
      );
      expect(reply.chunksWritten).toBe(reply.chunks.length);
      const folder = new BackupFolder(dir);
      for (const { name } of reply.chunks) expect(openChunk(keys, name, (await folder.read(folder.chunkPath(name)))!).length % reply.pageSize).toBe(0);
    } finally {
      await worker.terminate();
      closeDatabase(db);
      rmSync(root, { recursive: true, force: true });
    }
  });
});
