/**
 * Secrets stay in custody (DESIGN §6; docs/adr/0004-custody-model.md): a real
 * `svc-node serve --log` process does everything that makes or uses a key (node-held namespaces,
 * projects, persistent, ephemeral and owner-made identities, session keys, a rotation, a team with
 * members, a tunnel key, an identity backup, mail, chat, documents, owner-signed team requests,
 * present links), then stops. The test collects every secret it legitimately learns: the API keys
 * shown once, the owner token, and every signing seed and encryption private key, read back
 * through custody's own exports after the node stopped. None of them may appear in the decrypted
 * database (API keys only as their sha256), in the logs, in anything the renderer reads, or in the
 * files on disk; and the database file opens only with its key.
 */
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import SQLite from 'better-sqlite3-multiple-ciphers';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeBridgeArg, encodeBridgeArg } from '../../main/bridge-args.ts';
import { authorizedKeysLine } from '../../server/tunnel/ssh-key.ts';
import { publicKeyFromDidKey } from '../../server/crypto/did-key.ts';
import { openDatabase } from '../../server/store/database.ts';
import { addDocsMember, type DocsClient } from '../support/docs.ts';
import { expectOk } from '../support/expect.ts';
import { API_KEY, createIdentity, createNodeNamespace, createProject, persistent } from '../support/identities.ts';
import { connectSse } from '../support/sse.ts';
import {
  dumpDatabase,
  filesUnder,
  openStoppedNode,
  secretsIn,
  seedSecret,
  startLoggedNode,
  tokenSecret,
  type CustodyKey,
  type LoggedNode,
  type Secret,
} from './support.ts';

const DOMAIN = 'vault.test';
const canary = (what: string): string => `${what}-canary-${randomBytes(8).toString('hex')}`;
const MAIL_BODY = canary('mail');
const CHAT_BODY = canary('chat');
const DOC_BODY = `# Vault\n\n${canary('document')}\n`;
const ALIAS = `alias${randomBytes(6).toString('hex')}`;
const BACKUP_PASSPHRASE = 'a long backup passphrase for the test';

let node: LoggedNode;
let dataDir: string;
let ownerToken: string;
/** Every `svc_sk_` key the node showed once, by what it is. */
const apiKeys = new Map<string, string>();
/** Present-link tokens (bearer capabilities in a URL). */
const presentTokens: string[] = [];
/** did:keys the API showed for keys the node holds (each must have a seed in custody). */
const nodeDidKeys = new Set<string>();
/** Bob's first did:key, rotated away (its seed destroyed). */
let rotatedAway = '';
let destroyedRows: { did_key: string; wrapped_seed: Buffer | null; destroyed_at: string | null }[] = [];
/** What the renderer receives: every read response body, the owner feed's frames. */
const rendererReads: { what: string; text: string }[] = [];
let exportText = '';
/** The authorized_keys line the owner was shown for the tunnel key. */
let tunnelLine = '';
let logs = { stdout: '', stderr: '' };
let custodyKeys: CustodyKey[] = [];
let seeds: Secret[] = [];
let encryptionKeys: { keyId: string; privateKey: Buffer }[] = [];
let databaseKey: Buffer;
let dump: { where: string; value: Buffer }[] = [];
let members: DocsClient[] = [];

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
const keySecrets = (): Secret[] => [...apiKeys].map(([label, key]) => tokenSecret(label, key));
/** The browser session the start's sign-in link was traded for (a credential the node keeps, as a hash). */
let sessionToken = '';
const sessionSecrets = (): Secret[] => [tokenSecret('browser session', sessionToken)];

beforeAll(async () => {
  node = await startLoggedNode();
  return () => node.t.dispose();
});
beforeAll(async () => {
  const { t } = node;
  dataDir = node.dataDir;
  ownerToken = t.ownerToken;
  const read = async (what: string, token: string, path: string): Promise<unknown> => {
    const response = await fetch(`${t.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    const text = await response.text();
    expect(response.status, `${what}: ${text}`).toBe(200);
    rendererReads.push({ what, text });
    return JSON.parse(text) as unknown;
  };

  // A browser signs in with the link printed at start, and reads with its session.
  const signIn = await fetch(`${t.url}/v1/node/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code: new URL(t.info.ui_url).hash.replace(/^#code=/, '') }),
  });
  sessionToken = ((await signIn.json()) as { session_token: string }).session_token;
  expect(sessionToken).toMatch(/^svc_os_[0-9a-f]{64}$/);
  await read('GET /v1/node/sessions', sessionToken, '/v1/node/sessions');

  // The owner feed is open from the start, so it carries the wake items of what follows.
  const feed = await connectSse(`${t.url}/v1/node/events/stream?deadline=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`, {
    token: ownerToken,
  });
  const stream = feed.stream!;

  const namespace = await createNodeNamespace(t, DOMAIN);
  nodeDidKeys.add(namespace.controller_did);
  const project = await createProject(t, 'vault', DOMAIN);
  const loose = await createProject(t, 'loose');
  apiKeys.set('project vault', project.api_key).set('project loose', loose.api_key);

  const alice = await createIdentity(t, project.api_key, persistent(ALIAS));
  const bob = await createIdentity(t, project.api_key, persistent('bob'));
  const eph = await createIdentity(t, loose.api_key, { alias: 'eph' });
  const made = expectOk(await t.owner('POST', '/v1/node/identities', { project_id: project.project_id, name: 'made-by-owner' }), 201);
  expect(made.api_key).toMatch(API_KEY);
  apiKeys.set('alice', alice.api_key).set('bob', bob.api_key).set('ephemeral', eph.api_key).set('owner-made identity', made.api_key);
  for (const identity of [alice, eph, made]) nodeDidKeys.add(identity.did_key);

  // A rotation makes a new key and destroys the old one (the API key stays).
  rotatedAway = bob.did_key;
  expectOk(await t.request('PUT', '/v1/agents/me/rotate', { token: bob.api_key }));
  const bobNow = expectOk(await t.request('GET', '/v1/auth/introspect', { token: bob.api_key })).did_key as string;
  expect(bobNow).not.toBe(rotatedAway);
  nodeDidKeys.add(bobNow);

  const aliceSession = expectOk(await t.owner('POST', `/v1/node/identities/${alice.agent_id}/session-key`), 201).api_key as string;
  const bobSession = expectOk(await t.owner('POST', `/v1/node/identities/${bob.agent_id}/session-key`), 201).api_key as string;
  apiKeys.set('alice session', aliceSession).set('bob session', bobSession);

  // Signed mail and chat, sent with the identities' own keys.
  const mail = expectOk(await t.request('POST', '/v1/messages', { token: alice.api_key, body: { to_alias: 'bob', subject: 'vault', body: MAIL_BODY } }));
  const chat = expectOk(await t.request('POST', '/v1/chat/sessions', { token: bob.api_key, body: { to_aliases: [ALIAS], message: CHAT_BODY } }));

  // A team (team key and owner-member key in custody), two self-custodial members, documents.
  const writer = await addDocsMember(t, { team: 'vault', domain: DOMAIN, alias: 'writer' });
  const reader = await addDocsMember(t, { teamId: writer.teamId, alias: 'reader' });
  members = [writer, reader];
  nodeDidKeys.add(writer.member.teamDidKey);
  expectOk(await writer.create('plan', DOC_BODY, 'Plan'), 201);
  const link = expectOk(await writer.request('POST', '/v1/present', { body: { slug: 'plan' } }), 201);
  presentTokens.push(link.token as string);
  expect((await fetch(link.url as string)).status).toBe(200);

  // The tunnel key is made when the owner first looks at the tunnel.
  const tunnel = (await read('GET /v1/node/tunnel', ownerToken, '/v1/node/tunnel')) as { public_key: string };
  tunnelLine = tunnel.public_key;

  exportText = JSON.stringify(expectOk(await t.owner('POST', `/v1/node/identities/${alice.agent_id}/export`, { passphrase: BACKUP_PASSPHRASE })));
  expectOk(await t.owner('POST', '/v1/node/peers', { domain: 'far.test', url: 'http://127.0.0.1:9' }), 201);

  // What the renderer reads: the owner API with the owner token...
  for (const path of [
    '/v1/node/info',
    '/v1/node/identities',
    '/v1/node/projects',
    '/v1/node/namespaces',
    '/v1/node/teams',
    '/v1/node/peers',
    '/v1/node/tunnel',
    '/v1/node/docs/billing',
  ]) {
    await read(`GET ${path}`, ownerToken, path);
  }
  for (const path of [`/v1/node/teams/${encodeURIComponent(writer.teamId)}`, `/v1/node/teams/${encodeURIComponent(writer.teamId)}/members`]) {
    await read(`GET ${path}`, ownerToken, path);
  }
  // ...the identity API with session keys...
  for (const [who, key] of [
    ['alice', aliceSession],
    ['bob', bobSession],
  ] as const) {
    for (const path of [
      '/v1/auth/introspect',
      '/v1/messages/inbox',
      '/v1/messages/outbound',
      '/v1/chat/sessions',
      '/v1/chat/pending',
      '/v1/contacts',
      '/v1/agents/me/log',
    ]) {
      await read(`${who} GET ${path}`, key, path);
    }
  }
  await read('alice GET chat messages', aliceSession, `/v1/chat/sessions/${chat.session_id as string}/messages`);
  // ...and the docs surface through owner-signed team requests.
  for (const path of ['/v1/documents', '/v1/documents/plan', '/v1/present']) {
    const signed = await t.owner('POST', `/v1/node/teams/${encodeURIComponent(writer.teamId)}/sign`, { method: 'GET', path, surface: 'docs' });
    rendererReads.push({ what: `POST sign ${path}`, text: JSON.stringify(expectOk(signed)) });
    const response = await fetch(signed.body.url as string, { headers: signed.body.headers as Record<string, string> });
    const text = await response.text();
    expect(response.status, text).toBe(200);
    rendererReads.push({ what: `owner-signed GET ${path}`, text });
  }

  // The feed's frames so far: connected, the mail and chat wake items, and the change nudges.
  const seen = new Set<string>();
  while (!seen.has('mail_message') || !seen.has('chat_message')) seen.add((await stream.next()).event);
  stream.close();
  expect(stream.frames[0]?.event).toBe('connected');
  expect(stream.frames.find((f) => f.event === 'mail_message')?.data.message_id).toBe(mail.message_id);
  rendererReads.push({ what: 'owner feed frames', text: JSON.stringify(stream.frames) });

  logs = await node.stop();

  const stopped = await openStoppedNode(dataDir);
  try {
    custodyKeys = stopped.keys;
    encryptionKeys = stopped.encryptionKeys;
    dump = dumpDatabase(stopped.db);
    databaseKey = stopped.databaseKey;
    destroyedRows = stopped.db
      .prepare('SELECT did_key, wrapped_seed, destroyed_at FROM custody_keys WHERE destroyed_at IS NOT NULL')
      .all() as typeof destroyedRows;
  } finally {
    stopped.close();
  }
  seeds = [
    ...custodyKeys.map((k) => seedSecret(`${k.purpose} seed ${k.didKey}`, k.seed)),
    ...members.map((m) => seedSecret(`member seed ${m.member.alias}`, m.member.key.seed)),
    ...encryptionKeys.map((k) => seedSecret(`encryption key ${k.keyId}`, k.privateKey)),
  ];
}, 90_000);

describe('what custody holds', () => {
  it('holds a seed for every key the node made (namespace, identities, team, tunnel), each matching its did:key', () => {
    const tunnelKey = custodyKeys.find((k) => k.purpose === 'tunnel');
    expect(authorizedKeysLine(Buffer.from(publicKeyFromDidKey(tunnelKey!.didKey)!), 'svc-node tunnel')).toBe(tunnelLine);
    const held = new Set(custodyKeys.map((k) => k.didKey));
    expect(nodeDidKeys.size).toBe(6);
    for (const didKey of nodeDidKeys) expect(held, didKey).toContain(didKey);
    expect(new Set(custodyKeys.map((k) => k.purpose))).toEqual(new Set(['namespace', 'identity', 'team', 'tunnel']));
    for (const key of custodyKeys) expect(key.seed).toHaveLength(32);
    expect(apiKeys.size).toBe(8);
  });

  it('holds an encryption key for every custodial identity, read back only through its sealed export', () => {
    expect(encryptionKeys.length).toBeGreaterThanOrEqual(3);
    for (const key of encryptionKeys) expect(key.privateKey).toHaveLength(32);
  });

  it('keeps no seed of a key rotated away: its row names the did:key, its wrapped seed is gone', () => {
    expect(destroyedRows).toEqual([{ did_key: rotatedAway, wrapped_seed: null, destroyed_at: expect.any(String) }]);
    expect(custodyKeys.map((k) => k.didKey)).not.toContain(rotatedAway);
  });
});

describe('the decrypted database', () => {
  it('holds no signing seed, no member seed, no API key, no browser session and no owner token, in any table', () => {
    expect(
      dump.some((v) => v.value.includes(MAIL_BODY)),
      'the dump is the real data',
    ).toBe(true);
    const secrets = [...seeds, ...keySecrets(), ...sessionSecrets(), tokenSecret('owner token', ownerToken)];
    const found = dump.flatMap(({ where, value }) => secretsIn(value, secrets).map((label) => `${label} in ${where}`));
    expect(found).toEqual([]);
  });

  it('stores each API key, present-link token and browser session only as its sha256', () => {
    const values = dump.map((v) => v.value.toString('utf8'));
    for (const [label, key] of [...apiKeys, ...presentTokens.map((token) => ['present token', token] as const), ['browser session', sessionToken] as const]) {
      expect(
        values.some((v) => v.includes(key)),
        label,
      ).toBe(false);
      expect(values.includes(sha256(key)), `${label} hash`).toBe(true);
    }
  });
});

describe('the logs', () => {
  it('hold no seed, API key, browser session or owner token, though every request was logged', () => {
    const text = `${logs.stdout}\n${logs.stderr}`;
    expect(text).toContain('"msg":"incoming request"');
    expect(text).toContain('/v1/workspaces/init');
    expect(text).toContain('/session-key');
    expect(secretsIn(text, [...seeds, ...keySecrets(), ...sessionSecrets(), tokenSecret('owner token', ownerToken)])).toEqual([]);
  });

  it('hold no present-link token: the page was opened, and its URL is logged redacted', () => {
    const text = `${logs.stdout}\n${logs.stderr}`;
    expect(text).toContain('/present/[redacted]');
    for (const token of presentTokens) expect(text).not.toContain(token);
  });
});

describe('what the renderer receives', () => {
  it('no owner-API, identity-API or owner-signed docs read, nor the owner feed, carries a seed or an API key', () => {
    expect(rendererReads.length).toBeGreaterThan(25);
    const found = rendererReads.flatMap(({ what, text }) => secretsIn(text, [...seeds, ...keySecrets()]).map((label) => `${label} in ${what}`));
    expect(found).toEqual([]);
  });

  it('gets an identity backup sealed under the passphrase: no seed and no API key in it', () => {
    expect(exportText).toContain('svc-node.identity-backup');
    expect(secretsIn(exportText, [...seeds, ...keySecrets()])).toEqual([]);
  });

  it('gets from the preload bridge only the owner token and the loopback URLs', () => {
    const info = node.t.info;
    const arg = encodeBridgeArg({ ownerToken, coreUrl: info.core_url, libraryUrl: info.library_url, docsUrl: info.docs_url });
    const bridge = decodeBridgeArg(['--other', arg]);
    expect(bridge).toEqual({ ownerToken, coreUrl: info.core_url, libraryUrl: info.library_url, docsUrl: info.docs_url });
    expect(ownerToken).toMatch(/^svc_ot_[0-9a-f]{64}$/);
    for (const url of [info.core_url, info.library_url, info.docs_url]) expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(secretsIn(`${arg}\n${JSON.stringify(bridge)}`, [...seeds, ...keySecrets()])).toEqual([]);
  });
});

describe('the data on disk', () => {
  it('cannot be read without the database key, nor with a wrong key', () => {
    const file = join(dataDir, 'node.db');
    const plain = new SQLite(file, { readonly: true });
    try {
      expect(() => plain.prepare('SELECT count(*) FROM sqlite_master').get()).toThrow(/not a database/);
    } finally {
      plain.close();
    }
    const wrong = Buffer.from(databaseKey);
    wrong[0] = (wrong[0] ?? 0) ^ 1;
    expect(() => openDatabase({ file, key: wrong })).toThrow(/database key does not open/);
    expect(() => openDatabase({ file, key: randomBytes(32) })).toThrow(/database key does not open/);
  });

  it('holds no seed, API key, owner token or plaintext (mail, chat, document, alias) in any file of the data dir', () => {
    const files = filesUnder(dataDir);
    const db = files.find((f) => f.path === join(dataDir, 'node.db'));
    expect(db?.bytes.length).toBeGreaterThan(4096);
    expect(db?.bytes.subarray(0, 16).toString('latin1')).not.toBe('SQLite format 3\0');
    const plaintext: Secret[] = [MAIL_BODY, CHAT_BODY, DOC_BODY.trim().split('\n').pop()!, ALIAS, 'made-by-owner'].map((text) => ({
      label: `plaintext ${text}`,
      needles: [Buffer.from(text)],
    }));
    const secrets = [...seeds, ...keySecrets(), ...sessionSecrets(), tokenSecret('owner token', ownerToken), ...plaintext];
    expect(files.flatMap(({ path, bytes }) => secretsIn(bytes, secrets).map((label) => `${label} in ${path}`))).toEqual([]);
  });
});
