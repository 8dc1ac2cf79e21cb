/**
 * The recovery kit as a user runs it: `svc-node kit create` against a running node, `svc-node kit
 * restore` into a new folder, and `svc-node serve` on it, which is the same node to everyone who
 * knew the old one. Refused kits and folders write nothing; the keys never appear in the clear.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { setupBaseRecipient, setupBaseSender, HPKE_X25519_SHA256_AES256GCM } from '../../server/crypto/e2ee/hpke.ts';
import { verifyMessageSignature } from '../../server/crypto/message-signing.ts';
import { Custody, type KeyMaterial } from '../../server/custody/custody.ts';
import { openKit } from '../../server/recovery/kit/format.ts';
import { wipeKeyMaterial } from '../../server/custody/key-material.ts';
import { closeDatabase, openDatabase } from '../../server/store/database.ts';
import { runCli, runCliInTerminal } from '../support/cli.ts';
import { expectOneLineFailure, jsonOutput } from '../support/cli-expect.ts';
import { expectOk, expectRefusal } from '../support/expect.ts';
import { agentLogEntryVerifies, createIdentity, createNodeNamespace, createProject, persistent } from '../support/identities.ts';
import type { ServeProcess } from '../support/cli.ts';
import { startServedNode, type ServedNode } from '../support/served-node.ts';
import { createTeam } from '../support/teams.ts';

const PASSPHRASE = 'correct horse battery staple';
const WITH_PASSPHRASE = { SVC_NODE_KIT_PASSPHRASE: PASSPHRASE };
const INFO = Buffer.from('svc-node recovery kit test');

interface Identity {
  agent_id: string;
  api_key: string;
  did_key: string;
  did_aw: string | null;
  address: string | null;
}

/** Every spelling a key's bytes could take in a text: raw, hex, base64, base64url. */
function spellings(bytes: Buffer): string[] {
  const base64 = bytes.toString('base64');
  return [bytes.toString('latin1'), bytes.toString('hex'), base64, base64.replace(/=+$/, ''), bytes.toString('base64url')];
}

/** The key material custody holds in a data dir no node runs on. */
async function materialOf(dataDir: string): Promise<KeyMaterial> {
  const custody = await Custody.open({ dataDir, backend: 'key-file', env: {}, warn: () => {} });
  const db = openDatabase({ file: join(dataDir, 'node.db'), key: custody.databaseKey() });
  try {
    custody.attach(db);
    return custody.recoveryKeys();
  } finally {
    custody.close();
    closeDatabase(db);
  }
}

describe('svc-node kit create and kit restore', () => {
  let old: ServedNode;
  let root: string;
  let kitFile: string;
  let alice: Identity;
  let bob: Identity;
  let nodeId: string;
  let teamDidKey: string;
  let keysInKit: number;
  let namespaceController: string;
  let archivedPublicKey: Buffer;
  /** Every node process the suite ran, for what they printed. */
  const processes: ServeProcess[] = [];

  beforeAll(async () => {
    old = await startServedNode({ prefix: 'svc-kit-old-', args: ['--log'], onStart: (process) => processes.push(process) });
    return () => old.dispose();
  });
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'svc-kit-'));
    kitFile = join(root, 'node.kit');
    return () => rmSync(root, { recursive: true, force: true });
  });
  beforeAll(async () => {
    nodeId = expectOk(await old.owner('GET', '/v1/node/info')).node_id;
    namespaceController = (await createNodeNamespace(old, 'kit.test')).controller_did;
    const project = await createProject(old, 'crew', 'kit.test');
    alice = await createIdentity(old, project.api_key, persistent('alice'));
    expect(alice.address).toBe('kit.test/alice');
    bob = await createIdentity(old, project.api_key, persistent('bob'));
    teamDidKey = (await createTeam(old, 'crew', 'kit.test')).teamDidKey;
    expectOk(await old.owner('POST', '/v1/node/peers', { domain: 'beta.test', url: 'http://127.0.0.1:9' }), 201);
    // Bob's first encryption key is rotated out: archived, it must still open what was sealed to it.
    const before = expectOk(await old.request('GET', `/v1/did/${bob.did_aw}/key`)).encryption_key;
    archivedPublicKey = Buffer.from(before.encryption_public_key, 'base64');
    expectOk(await old.owner('POST', `/v1/node/identities/${bob.agent_id}/encryption-key/rotate`));
  });

  it('writes the kit file, 0600, and the node says it holds every key', async () => {
    expect(expectOk(await old.owner('GET', '/v1/node/recovery-kit'))).toEqual({ last_created_at: null, keys_changed_since: true });
    expectRefusal(await old.owner('POST', '/v1/node/recovery-kit', { passphrase: 'short' }), 422, undefined, 'SVC_ERR_VALIDATION');
    expectRefusal(await old.owner('POST', '/v1/node/recovery-kit', { passphrase: 'x'.repeat(1025) }), 422, undefined, 'SVC_ERR_VALIDATION');
    expect((await old.request('POST', '/v1/node/recovery-kit', { body: { passphrase: PASSPHRASE } })).status).toBe(401);
    const made = jsonOutput(await runCli(['kit', 'create', '--out', kitFile, '--data', old.dataDir, '--json'], WITH_PASSPHRASE));
    expect(Object.keys(made).sort()).toEqual(['created_at', 'file', 'identities', 'keys', 'kit_id']);
    expect(made).toMatchObject({ file: kitFile, identities: 2 });
    keysInKit = made.keys;
    // Two identities' signing and encryption keys (bob's twice), the namespace's, the team's and its owner member's.
    expect(keysInKit).toBe(8);
    expect(statSync(kitFile).mode & 0o777).toBe(0o600);
    const header = JSON.parse(readFileSync(kitFile, 'utf8'));
    expect(header).toMatchObject({ format: 'svc-node.recovery-kit', v: 1, kit_id: made.kit_id, node_id: nodeId, cipher: 'aes-256-gcm' });
    expect(header.kdf).toMatchObject({ name: 'scrypt', N: 2 ** 17, r: 8, p: 1 });
    expect(expectOk(await old.owner('GET', '/v1/node/recovery-kit'))).toEqual({ last_created_at: made.created_at, keys_changed_since: false });

    expectOneLineFailure(
      await runCli(['kit', 'create', '--out', kitFile, '--data', old.dataDir], WITH_PASSPHRASE),
      new RegExp(`^svc-node: ${kitFile} exists; pass --force to replace it$`),
    );
    const again = jsonOutput(await runCli(['kit', 'create', '--out', kitFile, '--data', old.dataDir, '--force', '--json'], WITH_PASSPHRASE));
    expect(again.kit_id).not.toBe(made.kit_id);
    expect(JSON.parse(readFileSync(kitFile, 'utf8')).kit_id).toBe(again.kit_id);
    expect(statSync(kitFile).mode & 0o777).toBe(0o600);
    expectOneLineFailure(
      await runCli(['kit', 'create', '--out', join(root, 'other.kit'), '--data', old.dataDir]),
      /^svc-node: no passphrase: set SVC_NODE_KIT_PASSPHRASE/,
    );
    expectOneLineFailure(
      await runCli(['kit', 'restore', kitFile], WITH_PASSPHRASE),
      /^svc-node: usage: svc-node kit restore FILE --data NEW_DIR \[--backup BACKUP_DIR \| --link URL --code CODE\] \[--json\]$/,
    );
    expect(existsSync(join(root, 'other.kit'))).toBe(false);
  });

  it('on a terminal, offers a generated phrase that Enter accepts, and asks twice for a typed one without echoing it', async () => {
    const offered = join(root, 'offered.kit');
    const twice = join(root, 'typed.kit');
    const differ = join(root, 'differ.kit');
    onTestFinished(() => {
      for (const file of [offered, twice, differ]) rmSync(file, { force: true });
    });
    const accepted = await runCliInTerminal(
      ['kit', 'create', '--out', offered, '--data', old.dataDir, '--json'],
      [[/or type a passphrase of your own: $/, '\r']],
    );
    expect(accepted.code, accepted.stdout).toBe(0);
    const phrase = /Suggested \(7 words, about 77 bits\):\r?\n\r?\n {2}([a-z ]+)\r?\n/.exec(accepted.stdout)?.[1];
    expect(phrase?.split(' ')).toHaveLength(7);
    expect(openKit(readFileSync(offered, 'utf8'), phrase!).header.node_id).toBe(nodeId);

    const typed = 'a passphrase typed twice';
    const asked = await runCliInTerminal(
      ['kit', 'create', '--out', twice, '--data', old.dataDir],
      [
        [/or type a passphrase of your own: $/, `${typed}\r`],
        [/Type it again: $/, `${typed}\r`],
      ],
    );
    expect(asked.code, asked.stdout).toBe(0);
    expect(asked.stdout).not.toContain(typed);
    expect(openKit(readFileSync(twice, 'utf8'), typed).header.node_id).toBe(nodeId);

    const refused = await runCliInTerminal(
      ['kit', 'create', '--out', differ, '--data', old.dataDir],
      [
        [/or type a passphrase of your own: $/, `${typed}\r`],
        [/Type it again: $/, 'another passphrase\r'],
      ],
    );
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/svc-node: the two passphrases differ; nothing was written\r?\n$/);
    expect(existsSync(differ)).toBe(false);
  });

  it('refuses a wrong passphrase, a changed kit and a folder that holds a node, writing nothing', async () => {
    const target = join(root, 'refused');
    expectOneLineFailure(
      await runCli(['kit', 'restore', kitFile, '--data', target], { SVC_NODE_KIT_PASSPHRASE: 'not the passphrase' }),
      /^svc-node: the kit does not open with this passphrase, or it was changed$/,
    );
    expect(existsSync(target)).toBe(false);

    const text = readFileSync(kitFile, 'utf8');
    const sealedAt = text.indexOf('"sealed":"') + 10;
    // One byte of the header (the node id) and one of the sealed payload, each changed by one bit.
    for (const position of [text.indexOf(nodeId) + 3, sealedAt + 200]) {
      const changed = Buffer.from(text);
      changed[position] = changed[position]! ^ 0x01;
      const file = join(root, 'changed.kit');
      writeFileSync(file, changed);
      expectOneLineFailure(
        await runCli(['kit', 'restore', file, '--data', target], WITH_PASSPHRASE),
        /^svc-node: the kit does not open with this passphrase, or it was changed$/,
      );
      expect(existsSync(target)).toBe(false);
    }

    const before = readdirSync(old.dataDir).sort();
    expectOneLineFailure(
      await runCli(['kit', 'restore', kitFile, '--data', old.dataDir], WITH_PASSPHRASE),
      new RegExp(`^svc-node: ${old.dataDir} already holds an svc-node; use a new folder$`),
    );
    expect(readdirSync(old.dataDir).sort()).toEqual(before);
    expect(readdirSync(root).sort()).toEqual(['changed.kit', 'node.kit']);
  });

  describe('restored into a new folder and served', () => {
    let restored: ServedNode;
    let restoredDir: string;

    beforeAll(async () => {
      restoredDir = join(root, 'restored');
      const answer = jsonOutput(await runCli(['kit', 'restore', kitFile, '--data', restoredDir, '--json'], WITH_PASSPHRASE));
      expect(answer).toEqual({ data_dir: restoredDir, node_id: nodeId, identities: 2, keys: keysInKit });
      // The old node is gone (the laptop was lost); the restored one runs on the folder the kit made.
      await old.stop();
      restored = await startServedNode({ dataDir: restoredDir, args: ['--log'], onStart: (process) => processes.push(process) });
      return () => restored.dispose();
    });

    it('is the same node: node id, namespace and team keys, did:key and did:svc of every identity', async () => {
      expect(expectOk(await restored.owner('GET', '/v1/node/info')).node_id).toBe(nodeId);
      const namespace = expectOk(await restored.request('GET', '/v1/namespaces/kit.test'));
      expect(namespace.controller_did).toBe(namespaceController);
      const teams = expectOk(await restored.owner('GET', '/v1/node/teams')).teams;
      expect(teams.map((team: { team_did_key: string }) => team.team_did_key)).toEqual([teamDidKey]);
      expect(expectOk(await restored.owner('GET', '/v1/node/peers')).peers.map((peer: { domain: string }) => peer.domain)).toEqual(['beta.test']);
      for (const identity of [alice, bob]) {
        const key = expectOk(await restored.request('GET', `/v1/did/${identity.did_aw}/key`));
        expect(key.current_did_key).toBe(identity.did_key);
      }
      const address = expectOk(await restored.request('GET', '/v1/namespaces/kit.test/addresses/alice'));
      expect(address).toMatchObject({ did_key: alice.did_key, did_aw: alice.did_aw });
      expect(expectOk(await restored.owner('GET', '/v1/node/recovery-kit')).keys_changed_since).toBe(false);
    });

    it("keeps the agents' API keys working, and signs with the same keys", async () => {
      const me = expectOk(await restored.request('GET', '/v1/auth/introspect', { token: alice.api_key }));
      expect(me).toMatchObject({ agent_id: alice.agent_id, did_aw: alice.did_aw });
      const sent = await restored.request('POST', '/v1/messages', {
        token: alice.api_key,
        body: { to_agent_id: bob.agent_id, subject: 'after', body: 'the same key' },
      });
      expect(sent.status, JSON.stringify(sent.body)).toBe(200);
      const inbox = expectOk(await restored.request('GET', '/v1/messages/inbox', { token: bob.api_key })).messages;
      const mail = inbox.find((m: { subject: string }) => m.subject === 'after');
      expect(mail.from_did).toBe(alice.did_key);
      expect(verifyMessageSignature(mail)).toBe('verified');
      // The identity's audit log gains an entry the restored node signed with the old key.
      const backup = expectOk(await restored.owner('POST', `/v1/node/identities/${alice.agent_id}/export`, { passphrase: PASSPHRASE }));
      const entry = backup.agent_log.at(-1);
      expect(entry).toMatchObject({ operation: 'export', signed_by: alice.did_key });
      expect(agentLogEntryVerifies(alice.agent_id, entry)).toBe(true);
    });

    it('opens what was sealed to an archived encryption key', async () => {
      // Custody read on the folder itself, with the node stopped: the HPKE open runs on the key as restored.
      await restored.stop();
      const custody = await Custody.open({ dataDir: restored.dataDir, backend: 'key-file', env: {}, warn: () => {} });
      const db = openDatabase({ file: join(restored.dataDir, 'node.db'), key: custody.databaseKey() });
      try {
        custody.attach(db);
        const archived = db
          .prepare('SELECT key_id FROM identity_encryption_keys WHERE agent_id = ? AND archived_at IS NOT NULL')
          .pluck()
          .all(bob.agent_id) as string[];
        expect(archived).toHaveLength(1);
        const archivedKeyId = archived[0]!;
        expect(custody.encryptionPublicKey(archivedKeyId)).toEqual(archivedPublicKey);
        const { enc, context } = setupBaseSender(HPKE_X25519_SHA256_AES256GCM, archivedPublicKey, INFO);
        const sealed = context.seal(Buffer.alloc(0), Buffer.from('sealed before the rotation'));
        const opened = setupBaseRecipient(HPKE_X25519_SHA256_AES256GCM, enc, custody.encryptionAgreement(archivedKeyId), INFO).open(Buffer.alloc(0), sealed);
        expect(opened.toString()).toBe('sealed before the rotation');
      } finally {
        custody.close();
        closeDatabase(db);
      }
    });

    it('never shows a private key or the passphrase in the clear: not in the kit file, nor in either node’s log output', async () => {
      const material = await materialOf(restoredDir);
      try {
        const secrets = [
          ...material.signing.flatMap((key) => (key.seed === null ? [] : [key.seed])),
          ...material.encryption.flatMap((key) => (key.private_key === null ? [] : [key.private_key])),
          material.backupKey,
        ];
        expect(secrets).toHaveLength(keysInKit + 1);
        const texts: Record<string, string> = {
          kit: readFileSync(kitFile, 'latin1'),
          ...Object.fromEntries(processes.map((process, i) => [`node ${i}`, JSON.stringify(process.output())])),
        };
        expect(Object.keys(texts)).toHaveLength(3);
        // The old node logged its requests, the kit's among them: what it logged was looked at.
        expect(texts['node 0']).toContain('/v1/node/recovery-kit');
        for (const secret of secrets) {
          for (const spelling of spellings(secret)) {
            for (const [where, text] of Object.entries(texts)) expect(text.includes(spelling), `${where}`).toBe(false);
          }
        }
        // Nor the passphrase, which reached the node in a request body.
        for (const [where, text] of Object.entries(texts)) expect(text.includes(PASSPHRASE), `${where}`).toBe(false);
      } finally {
        wipeKeyMaterial(material);
      }
    });
  });
});
