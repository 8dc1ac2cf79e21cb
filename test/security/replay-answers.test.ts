/**
 * Honest repeats of signed requests (DESIGN §5; docs/adr/0003-request-authentication.md). Ed25519
 * is deterministic and timestamps have second precision, so a client that sends the same request
 * twice inside a second, or retries after a timeout, sends identical bytes; upstream's clients add
 * no nonce. Reads may repeat; an identical write takes effect once and every repeat inside the
 * window gets the first answer (status and body), across a restart and a crash too. The same
 * signature over another request is still refused. Requests are signed here the way upstream's
 * clients sign them (no nonce, one timestamp), so two signings of one request are the same bytes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTeamHeaders, envelopeTimestamp } from '../../server/auth/team-envelope-client.ts';
import { privateKeyFromSeed, signBytes } from '../../server/crypto/ed25519.ts';
import { staticDnsResolver } from '../../server/dns/resolver.ts';
import { addDocsMember } from '../support/docs.ts';
import { openNodeDatabase } from '../support/database.ts';
import { expectOk, expectRefusal } from '../support/expect.ts';
import { blueprintPayload, profileFiles } from '../support/library.ts';
import { didKeyHeaders, testKey } from '../support/keys.ts';
import { registerByOwner, setPublicOrigin } from '../support/namespaces.ts';
import { requestJson, startTestNode, type ApiResponse, type NodeEndpoint, type TestNode } from '../support/node.ts';
import { freePort, startServedNode } from '../support/served-node.ts';
import { addTeamMember, PUBLISHER_SCOPES, type TeamClient } from '../support/teams.ts';

/** A request as its client keeps it for a retry: the exact headers and body bytes. */
interface Signed {
  method: string;
  path: string;
  headers: Record<string, string>;
  raw?: string;
}

/** Signed as upstream's clients sign: envelope v2 without a nonce, so equal requests are equal bytes. */
function upstreamSigned(
  node: NodeEndpoint,
  client: TeamClient,
  method: string,
  path: string,
  options: { body?: unknown; raw?: string; aud?: string; contentType?: string; timestamp?: string } = {},
): Signed {
  const raw = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  const privateKey = privateKeyFromSeed(client.key.seed);
  const headers: Record<string, string> = {
    ...buildTeamHeaders({
      method,
      path,
      body: raw,
      aud: options.aud ?? node.info.library_url,
      teamId: client.teamId,
      certificateB64: client.certificateB64,
      didKey: client.key.didKey,
      sign: (bytes) => signBytes(privateKey, bytes),
      timestamp: options.timestamp ?? envelopeTimestamp(),
      nonce: false,
    }),
  };
  if (raw !== undefined) headers['content-type'] = options.contentType ?? 'application/json';
  return { method, path, headers, ...(raw === undefined ? {} : { raw }) };
}

const send = (node: NodeEndpoint, s: Signed): Promise<ApiResponse> =>
  requestJson(node.url, s.method, s.path, { headers: s.headers, ...(s.raw === undefined ? {} : { raw: s.raw }) });

let t: TestNode;
let publisher: TeamClient;
let member: TeamClient;
/** DNS as a table that answers TXT lookups slowly, so a namespace registration is still running when its repeat arrives. */
const dns = staticDnsResolver();
const NODE_ORIGIN = 'https://repeats-node.test';

beforeAll(async () => {
  t = await startTestNode({
    dns: { ...dns, resolveTxt: async (name) => new Promise((resolve) => setTimeout(() => resolve(dns.records[name] ?? []), 150)) },
  });
  await setPublicOrigin(t, NODE_ORIGIN);
  publisher = await addTeamMember(t, { team: 'repeats', domain: 'repeats.test', scopes: PUBLISHER_SCOPES });
  member = await addTeamMember(t, { teamId: publisher.teamId });
  expectOk(
    await publisher.request('POST', '/v1/blueprints/import', {
      body: blueprintPayload({ ref: 'repeat.team', profiles: [{ ref: 'scout' }, { ref: 'ranger' }] }),
    }),
    201,
  );
});
afterAll(async () => {
  await t.stop();
});

const shelfRefs = async (client: TeamClient): Promise<string[]> =>
  expectOk(await client.request('GET', '/v1/shelf')).profiles.map((p: { profile_ref: string }) => p.profile_ref);

describe('signed reads', () => {
  it('repeat: the identical signed GET twice in one second is 200 both times', async () => {
    const now = envelopeTimestamp();
    const first = upstreamSigned(t, member, 'GET', '/v1/shelf', { timestamp: now });
    const again = upstreamSigned(t, member, 'GET', '/v1/shelf', { timestamp: now });
    expect(again.headers).toEqual(first.headers);
    const one = expectOk(await send(t, first));
    expect(expectOk(await send(t, again))).toEqual(one);
    expectOk(await send(t, first));
  });

  it('repeat at once too (HEAD and GET)', async () => {
    const read = upstreamSigned(t, member, 'GET', '/v1/shelf?limit=5');
    const answers = await Promise.all([send(t, read), send(t, read), send(t, read)]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    const head = upstreamSigned(t, member, 'HEAD', '/v1/shelf');
    expect((await send(t, head)).status).toBe(200);
    expect((await send(t, head)).status).toBe(200);
  });
});

describe('an identical signed write', () => {
  it('a retried shelf import gets the first answer (status and body); the shelf holds one copy', async () => {
    const body = { source_blueprint_ref: 'repeat.team', profile_ref: 'scout' };
    const retry = upstreamSigned(t, member, 'POST', '/v1/shelf/import', { body });
    const first = await send(t, retry);
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ profile_ref: 'scout', created: true });
    const second = await send(t, retry);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect((await shelfRefs(member)).filter((ref) => ref === 'scout')).toHaveLength(1);
    expect(expectOk(await member.request('GET', '/v1/profiles/scout/versions')).versions).toHaveLength(1);
    // A newly signed import is a new request: the spec's idempotent answer, 200 and the copy.
    expect(expectOk(await member.request('POST', '/v1/shelf/import', { body }), 200)).toEqual({ ...first.body, created: false });
  });

  it('sent twice at once: it runs once and both get its answer', async () => {
    const create = upstreamSigned(t, member, 'POST', '/v1/profiles', { body: { files: profileFiles({ ref: 'twin' }) } });
    const [a, b] = await Promise.all([send(t, create), send(t, create)]);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.body).toEqual(a.body);
    expect(expectOk(await member.request('GET', '/v1/profiles/twin/versions')).versions).toHaveLength(1);
  });

  it('gets the first answer when it was a refusal too, and runs no second time', async () => {
    const create = upstreamSigned(t, member, 'POST', '/v1/profiles', { body: { files: profileFiles({ ref: 'twin', version: '9.0.0' }) } });
    const first = await send(t, create);
    expectRefusal(first, 409, undefined, 'SVC_ERR_PROFILE_EXISTS');
    expect(await send(t, create)).toMatchObject({ status: 409, body: first.body });
  });

  it('with the same signature over another body is refused: the signature covers the body hash', async () => {
    const signed = upstreamSigned(t, member, 'POST', '/v1/profiles', { body: { files: profileFiles({ ref: 'honest' }) } });
    expectOk(await send(t, signed), 201);
    const forged = { ...signed, raw: JSON.stringify({ files: profileFiles({ ref: 'forged' }) }) };
    expectRefusal(await send(t, forged), 401, /body_sha256/, 'SVC_ERR_TEAM_ENVELOPE_MISMATCH');
    expect(await shelfRefs(member)).not.toContain('forged');
  });

  it('of another member, or a changed content type, is not the same write', async () => {
    const body = { files: profileFiles({ ref: 'typed' }) };
    const signed = upstreamSigned(t, member, 'POST', '/v1/profiles', { body });
    expectOk(await send(t, signed), 201);
    // The content type is outside the signature: the same bytes under another type are refused.
    expectRefusal(
      await send(t, { ...signed, headers: { ...signed.headers, 'content-type': 'application/json; charset=utf-8' } }),
      401,
      /already used/,
      'SVC_ERR_REPLAYED',
    );
  });

  it('answers too large to keep: a repeat is a 409 naming it, and the write still runs once', async () => {
    const docs = await addDocsMember(t, { teamId: member.teamId });
    const big = `# Big\n\n${'word '.repeat(80_000)}\n`;
    const create = upstreamSigned(t, docs.member, 'POST', '/v1/documents', { body: { slug: 'big', title: 'Big', body: big }, aud: t.info.docs_url });
    expect((await send(t, create)).status).toBe(201);
    expectRefusal(await send(t, create), 409, /too large to keep/, 'SVC_ERR_REPLAY_ANSWER_UNAVAILABLE');
    expect(expectOk(await docs.request('GET', '/v1/documents/big/versions'))).toHaveLength(1);
  });

  it('whose answer holds a secret shown once is not kept: a repeat of a present-link mint is a 409, one link', async () => {
    const docs = await addDocsMember(t, { teamId: member.teamId });
    expectOk(await docs.create('shown-once', '# Once\n'), 201);
    const mint = upstreamSigned(t, docs.member, 'POST', '/v1/present', { body: { slug: 'shown-once' }, aud: t.info.docs_url });
    expect(expectOk(await send(t, mint), 201).token).toEqual(expect.any(String));
    expectRefusal(await send(t, mint), 409, /secret shown once/, 'SVC_ERR_REPLAY_ANSWER_UNAVAILABLE');
    const links = expectOk(await docs.request('GET', '/v1/present')).filter((link: { slug: string }) => link.slug === 'shown-once');
    expect(links).toHaveLength(1);
  });
});

describe('a namespace write (DIDKey signature over its fields, not the body)', () => {
  const domain = 'repeat-ns.test';
  const controller = testKey();
  const alice = testKey();
  const bob = testKey();

  beforeAll(async () => {
    expectOk(await registerByOwner(t, domain, controller.didKey), 201);
  });

  it('repeated gets the first answer; the same signature with another body is refused', async () => {
    const headers = { ...didKeyHeaders(controller, { domain, name: 'alice', operation: 'register_address' }), 'content-type': 'application/json' };
    const assign: Signed = {
      method: 'POST',
      path: `/v1/namespaces/${domain}/addresses`,
      headers,
      raw: JSON.stringify({ name: 'alice', did_key: alice.didKey }),
    };
    const first = expectOk(await send(t, assign), 201);
    expect(expectOk(await send(t, assign), 201)).toEqual(first);
    expectRefusal(await send(t, { ...assign, raw: JSON.stringify({ name: 'alice', did_key: bob.didKey }) }), 401, /already used/, 'SVC_ERR_REPLAYED');
    expect(expectOk(await t.request('GET', `/v1/namespaces/${domain}/addresses/alice`)).did_key).toBe(alice.didKey);
  });

  it('sent again while the first still runs (DNS proof takes a while): the repeat waits and gets its answer', async () => {
    const proven = 'repeat-proof.test';
    dns.records[`_svcid.${proven}`] = [[`svcid=v1; controller=${controller.didKey}; node=${NODE_ORIGIN};`]];
    const headers = { ...didKeyHeaders(controller, { domain: proven, operation: 'register' }), 'content-type': 'application/json' };
    const register: Signed = { method: 'POST', path: '/v1/namespaces', headers, raw: JSON.stringify({ domain: proven }) };
    const [a, b] = await Promise.all([send(t, register), send(t, register)]);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.body).toEqual(a.body);
    expect(expectOk(await t.request('GET', `/v1/namespaces/${proven}`))).toEqual(a.body);
  });
});

describe('across a restart and a crash', () => {
  it('a write answered just before a SIGKILL: the retry after the restart gets that answer, and it ran once', async () => {
    const served = await startServedNode({ prefix: 'svc-node-replay-kill-' });
    try {
      const team = await addTeamMember(served, { team: 'crashes', domain: 'crashes.test' });
      const create = upstreamSigned(served, team, 'POST', '/v1/profiles', { body: { files: profileFiles({ ref: 'survivor' }) } });
      const first = expectOk(await send(served, create), 201);
      await served.stop('SIGKILL');
      await served.start();
      expect(expectOk(await send(served, create), 201)).toEqual(first);
      expect(expectOk(await team.request('GET', '/v1/profiles/survivor/versions')).versions).toHaveLength(1);
    } finally {
      await served.dispose();
    }
  });

  it('a write whose answer was never recorded (the node stopped first): a 409, and it does not run again', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-node-replay-unknown-'));
    const port = await freePort();
    let node = await startTestNode({ dataDir, port });
    try {
      const team = await addTeamMember(node, { team: 'stops', domain: 'stops.test' });
      const create = upstreamSigned(node, team, 'POST', '/v1/profiles', { body: { files: profileFiles({ ref: 'unknown' }) } });
      expectOk(await send(node, create), 201);
      await node.stop({ keepData: true });
      // What a crash between the write's commit and its recorded answer leaves: a claimed signature.
      const { db, close } = await openNodeDatabase(dataDir);
      try {
        const cleared = db
          .prepare(
            'UPDATE replay_signatures SET answer_status = NULL, answer_type = NULL, answer_body = NULL, answered_at = NULL WHERE fingerprint IS NOT NULL',
          )
          .run();
        expect(cleared.changes).toBeGreaterThan(0);
      } finally {
        close();
      }
      node = await startTestNode({ dataDir, port });
      const retry = await send(node, create);
      expectRefusal(retry, 409, /stopped before answering/, 'SVC_ERR_REPLAY_ANSWER_UNAVAILABLE');
      expect(expectOk(await team.request('GET', '/v1/profiles/unknown/versions')).versions).toHaveLength(1);
    } finally {
      await node.stop({ keepData: true });
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
