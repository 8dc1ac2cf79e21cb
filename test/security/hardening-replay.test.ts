/**
 * Replays across a restart: the replay cache lived in memory, so a signed write
 * captured before a restart was accepted once more after it. Each attack captures a real signed
 * write (its exact headers and body), undoes its effect, restarts the node on the same data dir
 * and URL, and replays the bytes: the write does not run again (the data stays as it was left);
 * the replay only gets the first answer again (an honest retry of an identical write
 * gets its first answer, DESIGN §5), while a fresh signature still works. Signed reads may repeat
 * (DESIGN §5) and add no row to the durable table.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { MARKDOWN, addDocsMember, type DocsClient } from '../support/docs.ts';
import { openNodeDatabase } from '../support/database.ts';
import { expectOk, expectRefusal } from '../support/expect.ts';
import { didKeyHeaders, testKey } from '../support/keys.ts';
import { profileFiles } from '../support/library.ts';
import { registerByOwner } from '../support/namespaces.ts';
import { requestJson, startTestNode, type ApiResponse, type TestNode } from '../support/node.ts';
import { freePort } from '../support/served-node.ts';
import { addTeamMember, type TeamClient } from '../support/teams.ts';

const DOMAIN = 'replay.test';

/** A request as an eavesdropper keeps it: method, target, headers and body bytes. */
interface Captured {
  method: string;
  path: string;
  headers: Record<string, string>;
  raw?: string;
}

let dataDir: string;
let port: number;
let t: TestNode;
const controller = testKey();
const alice = testKey();
let member: TeamClient;
let writer: DocsClient;

/**
 * Starts the node on the same dir and URL. fetch keeps connections to the previous run open until
 * it notices they closed, and replays a GET on such a connection but never a POST, so a few GETs
 * first clear the pool for the signed writes.
 */
async function start(): Promise<void> {
  t = await startTestNode({ dataDir, port });
  for (let attempt = 0; ; attempt++) {
    try {
      await t.request('GET', '/v1/namespaces/none.test');
      return;
    } catch (error) {
      if (attempt === 3) throw error;
    }
  }
}

const send = (c: Captured): Promise<ApiResponse> =>
  requestJson(t.url, c.method, c.path, { headers: c.headers, ...(c.raw === undefined ? {} : { raw: c.raw }) });

/** A team-signed request, signed now and kept for later. */
function captureTeam(client: TeamClient, method: string, path: string, options: { raw?: string; contentType?: string; aud?: string } = {}): Captured {
  const headers: Record<string, string> = { ...client.sign(method, path, options.raw, options.aud ? { aud: options.aud } : {}) };
  if (options.raw !== undefined) headers['content-type'] = options.contentType ?? 'application/json';
  return { method, path, headers, ...(options.raw === undefined ? {} : { raw: options.raw }) };
}

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'svc-node-replay-'));
  return () => rmSync(dataDir, { recursive: true, force: true });
});
beforeAll(async () => {
  // The same URL after the restart: a signed envelope names its audience, port included.
  port = await freePort();
  await start();
  return () => t.stop({ keepData: true });
});
beforeAll(async () => {
  expectOk(await registerByOwner(t, DOMAIN, controller.didKey), 201);
  member = await addTeamMember(t, { team: 'replays', domain: 'replays.test' });
  writer = await addDocsMember(t, { teamId: member.teamId });
});

/** The replayed write's answer: the first one again, byte for byte, so nothing ran. */
async function expectFirstAnswer(c: Captured, first: ApiResponse): Promise<void> {
  const again = await send(c);
  expect(again.status).toBe(first.status);
  expect(again.body).toEqual(first.body);
}

describe('a signed write captured before a restart', () => {
  it('does not run again after it: a DIDKey namespace write (assigning an address)', async () => {
    const captured: Captured = {
      method: 'POST',
      path: `/v1/namespaces/${DOMAIN}/addresses`,
      headers: { ...didKeyHeaders(controller, { domain: DOMAIN, name: 'alice', operation: 'register_address' }), 'content-type': 'application/json' },
      raw: JSON.stringify({ name: 'alice', did_key: alice.didKey }),
    };
    const first = await send(captured);
    expectOk(first, 201);
    // The controller removes the address; the attacker wants it back after the node restarts.
    const removed = didKeyHeaders(controller, { domain: DOMAIN, name: 'alice', operation: 'delete_address' });
    expect((await t.request('DELETE', `/v1/namespaces/${DOMAIN}/addresses/alice`, { headers: removed })).status).toBeLessThan(300);
    await expectFirstAnswer(captured, first);
    expectRefusal(await t.request('GET', `/v1/namespaces/${DOMAIN}/addresses/alice`), 404, undefined, 'SVC_ERR_ADDRESS_NOT_FOUND');

    await t.stop({ keepData: true });
    await start();
    await expectFirstAnswer(captured, first);
    // With another body the captured signature is refused outright.
    expectRefusal(await send({ ...captured, raw: JSON.stringify({ name: 'alice', did_key: controller.didKey }) }), 401, /already used/, 'SVC_ERR_REPLAYED');
    expectRefusal(await t.request('GET', `/v1/namespaces/${DOMAIN}/addresses/alice`), 404, undefined, 'SVC_ERR_ADDRESS_NOT_FOUND');
    // The controller's fresh signature for the same operation works.
    const fresh = didKeyHeaders(controller, { domain: DOMAIN, name: 'alice', operation: 'register_address' });
    expectOk(await t.request('POST', `/v1/namespaces/${DOMAIN}/addresses`, { headers: fresh, body: { name: 'alice', did_key: alice.didKey } }), 201);
  });

  it('does not run again after it: a team-signed library write (deleting a shelf profile)', async () => {
    expectOk(await member.request('POST', '/v1/profiles', { body: { files: profileFiles({ ref: 'keeper' }) } }), 201);
    const deletion = captureTeam(member, 'DELETE', '/v1/profiles/keeper');
    const first = await send(deletion);
    expect(first.status).toBeLessThan(300);
    // The team puts the profile back; a replayed deletion would take it away again.
    expectOk(await member.request('POST', '/v1/profiles', { body: { files: profileFiles({ ref: 'keeper', mission: 'Back again.' }) } }), 201);

    await t.stop({ keepData: true });
    await start();
    await expectFirstAnswer(deletion, first);
    expect(expectOk(await member.request('GET', '/v1/profiles/keeper')).profile_ref).toBe('keeper');
    // A fresh signature for the same request works.
    expect((await member.request('DELETE', '/v1/profiles/keeper')).status).toBeLessThan(300);
    expectRefusal(await member.request('GET', '/v1/profiles/keeper'), 404);
  });

  it('does not run again after it: a team-signed document write (appending a version)', async () => {
    expectOk(await writer.create('minutes', '# Minutes\n'), 201);
    const append = captureTeam(writer.member, 'POST', '/v1/documents/minutes/versions', {
      raw: '# Minutes\n\nApproved.\n',
      contentType: MARKDOWN,
      aud: t.info.docs_url,
    });
    const first = await send(append);
    expect(expectOk(first, 201).current_version).toBe(2);

    await t.stop({ keepData: true });
    await start();
    await expectFirstAnswer(append, first);
    const history = expectOk(await writer.request('GET', '/v1/documents/minutes/versions'));
    expect(history.map((v: { version_number: number }) => v.version_number)).toEqual([2, 1]);
    expect(expectOk(await writer.append('minutes', '# Minutes\n\nApproved twice.\n'), 201).current_version).toBe(3);
  });
});

describe('signed reads', () => {
  it('repeat, and add nothing to the durable table', async () => {
    const read = captureTeam(member, 'GET', '/v1/shelf');
    expectOk(await send(read));
    expectOk(await send(read));
    for (let i = 0; i < 5; i++) expectOk(await member.request('GET', '/v1/shelf'));

    const writesBefore = await durableRows();
    for (let i = 0; i < 5; i++) expectOk(await member.request('GET', '/v1/shelf'));
    expect(await durableRows()).toEqual(writesBefore);
  });
});

/** The durable replay rows, read from the stopped node's database (the node is started again after). */
async function durableRows(): Promise<string[]> {
  await t.stop({ keepData: true });
  const { db, close } = await openNodeDatabase(dataDir);
  try {
    return db.prepare('SELECT signature_key FROM replay_signatures ORDER BY signature_key').pluck().all() as string[];
  } finally {
    close();
    await start();
  }
}
