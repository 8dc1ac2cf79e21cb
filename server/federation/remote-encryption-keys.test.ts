/**
 * Finding a recipient's encryption key on its own node (remote-encryption-keys.ts), through the
 * real directory and outbound client on a real encrypted database: the recipient's node is a
 * loopback server answering upstream's address and did:svc key routes as told, honest or hostile,
 * and DNS is a table (a system edge). Each way a key can be wrong is refused with its code and
 * never returned; what was found is remembered, within its time and its expiry.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ServerResponse } from 'node:http';
import { renderDnsRecord } from '../crypto/dns-txt.ts';
import { buildKeyAssertion, type EncryptionKeyAssertion } from '../crypto/e2ee/key-assertion.ts';
import { generateX25519KeyPair } from '../crypto/e2ee/x25519.ts';
import { ServiceError } from '../errors.ts';
import { testParty, type TestParty } from '../../test/support/e2ee-parties.ts';
import { json, remoteServers, stream, type RemoteServer } from '../../test/support/remote-server.ts';
import { failableDns, startUnitNode, type UnitNode } from '../../test/support/unit-node.ts';
import { RemoteEncryptionKeyLookup, REMOTE_KEY_FAILURE_TTL_MS, REMOTE_KEY_TTL_MS, type FoundEncryptionKey } from './remote-encryption-keys.ts';

const servers = remoteServers();
const { dns, table, failing, reset: resetDns } = failableDns('ESERVFAIL');
const DAY = 24 * 60 * 60 * 1000;
let node: UnitNode;

/** How the recipient's node answers for one name: its address (null: a 404) and its did:svc key answer. */
interface Served {
  address: Record<string, unknown> | null;
  key?: unknown;
  /** Answers the key route itself instead (a hostile or broken node). */
  raw?: (response: ServerResponse, server: RemoteServer) => unknown;
}

/** An identity as its own node would publish it: did:key, did:svc and its signed assertion. */
function identity(name: string): { party: TestParty; stableId: string; served: Served } {
  const stableId = `did:svc:z${name}${Math.random().toString(36).slice(2, 10)}`;
  const party = testParty({ stableId });
  return {
    party,
    stableId,
    served: {
      // Upstream's address answer: fewer fields than this node's, the two read are there.
      address: { address_id: `id-${name}`, domain: 'k.test', name, did_aw: stableId, current_did_key: party.did, created_at: '2026-01-01T00:00:00Z' },
      key: { did_aw: stableId, current_did_key: party.did, encryption_key: party.encryptionKey },
    },
  };
}

/** A node answering for `k.test`'s names as `names` says. */
function keyNode(names: Record<string, Served>): Promise<RemoteServer> {
  const server = servers.start((request, response) => {
    const url = new URL(request.url ?? '/', 'http://x');
    const name = /^\/v1\/namespaces\/k\.test\/addresses\/([^/]+)$/.exec(url.pathname)?.[1];
    if (name !== undefined) {
      const served = names[decodeURIComponent(name)];
      return served?.address ? json(response, 200, served.address) : json(response, 404, { detail: 'Address not found' });
    }
    const did = /^\/v1\/did\/([^/]+)\/key$/.exec(url.pathname)?.[1];
    const served = Object.values(names).find((s) => s.address?.did_aw === decodeURIComponent(did ?? ''));
    if (served?.raw) return server.then((s) => served.raw!(response, s));
    return served?.key === undefined ? json(response, 404, { detail: 'did not found' }) : json(response, 200, served.key);
  });
  return server;
}

/** The lookup's answer, or the ServiceError it refused with. */
async function find(address: string): Promise<FoundEncryptionKey | ServiceError> {
  try {
    return await node.services.remoteEncryptionKeys.find(address);
  } catch (error) {
    if (error instanceof ServiceError) return error;
    throw error;
  }
}

const refusal = (statusCode: number, code: string, message?: string | RegExp) => ({
  statusCode,
  code,
  ...(message === undefined ? {} : { message: typeof message === 'string' ? message : expect.stringMatching(message) }),
});

/** An assertion for `party` with fields of the test's choosing, signed by `sign` (the party's own key unless said). */
function assertionFor(party: TestParty, fields: { stableId?: string; now?: number; lifetimeMs?: number; identityDid?: string }, sign = party.sign) {
  return buildKeyAssertion(
    {
      identityDid: fields.identityDid ?? party.did,
      identityStableId: fields.stableId,
      custody: 'self',
      publicKey: generateX25519KeyPair().publicKey,
      now: fields.now ?? Date.now() - 60_000,
      lifetimeMs: fields.lifetimeMs,
    },
    sign,
  );
}

beforeEach(async () => {
  resetDns();
  node = await startUnitNode({ remote: { timeoutMs: 1_000 } }, dns);
});

afterEach(async () => {
  await servers.closeAll();
  node.close();
});

describe("a recipient's encryption key on another node", () => {
  it('is its address’s did:svc’s assertion, verified, asked once and then remembered for a while', async () => {
    const carol = identity('carol');
    const recipientNode = await keyNode({ carol: carol.served });
    node.services.directory.set('k.test', recipientNode.url);

    const found = await find('k.test/carol');
    expect(found).toMatchObject({ address: 'k.test/carol', didKey: carol.party.did, stableId: carol.stableId, assertion: carol.party.encryptionKey });
    expect((found as FoundEncryptionKey).key.publicKey).toEqual(carol.party.keys.publicKey);
    expect(recipientNode.requests).toEqual([`GET /v1/namespaces/k.test/addresses/carol`, `GET /v1/did/${encodeURIComponent(carol.stableId)}/key`]);

    // Remembered: the second lookup asks nobody.
    expect(await find('k.test/carol')).toEqual(found);
    expect(recipientNode.requests).toHaveLength(2);
    // Until its time is up; then the node is asked again.
    node.advance(REMOTE_KEY_TTL_MS);
    expect(await find('k.test/carol')).toEqual(found);
    expect(recipientNode.requests).toHaveLength(4);
  });

  it('joins lookups of one address already under way', async () => {
    const carol = identity('carol');
    const recipientNode = await keyNode({ carol: carol.served });
    node.services.directory.set('k.test', recipientNode.url);
    const [a, b] = await Promise.all([find('k.test/carol'), find('k.test/carol')]);
    expect(a).toEqual(b);
    expect(recipientNode.requests).toHaveLength(2);
  });

  it('is not used past its assertion’s expiry, even while it is remembered', async () => {
    const carol = identity('carol');
    carol.served.key = {
      ...(carol.served.key as object),
      encryption_key: assertionFor(carol.party, { stableId: carol.stableId, now: Date.now() - 1_000, lifetimeMs: 120_000 }),
    };
    const recipientNode = await keyNode({ carol: carol.served });
    node.services.directory.set('k.test', recipientNode.url);
    expect(await find('k.test/carol')).toMatchObject({ address: 'k.test/carol' });
    node.advance(60_000);
    expect(await find('k.test/carol')).toMatchObject({ address: 'k.test/carol' });
    expect(recipientNode.requests).toHaveLength(2);
    // Its assertion expires before the time a key is remembered for is up: the node is asked again, and it is refused.
    node.advance(60_000);
    expect(await find('k.test/carol')).toMatchObject(refusal(422, 'SVC_ERR_RECIPIENT_KEY_EXPIRED', "k.test/carol's encryption key assertion is expired"));
    expect(recipientNode.requests).toHaveLength(4);
  });

  it('is refused, by its own code, when it is not the address’s key or not valid now', async () => {
    const names: Record<string, Served> = {};
    const add = (name: string, assertion: (id: ReturnType<typeof identity>) => EncryptionKeyAssertion | Record<string, unknown>) => {
      const id = identity(name);
      id.served.key = { ...(id.served.key as object), encryption_key: assertion(id) };
      names[name] = id.served;
    };
    add('forged', (id) => assertionFor(id.party, { stableId: id.stableId }, testParty().sign));
    add('expired', (id) => assertionFor(id.party, { stableId: id.stableId, now: Date.now() - 91 * DAY }));
    add('early', (id) => assertionFor(id.party, { stableId: id.stableId, now: Date.now() + DAY }));
    add('otherdid', (id) => {
      const other = testParty({ stableId: id.stableId });
      return other.encryptionKey;
    });
    add('otherid', (id) => assertionFor(id.party, { stableId: 'did:svc:zsomeoneelse' }));
    add('nostableid', (id) => assertionFor(id.party, {}));
    add('unknownfield', (id) => ({ ...id.party.encryptionKey, note: 'unsigned' }));
    add('badkeyid', (id) => ({ ...id.party.encryptionKey, encryption_key_id: testParty().encryptionKey.encryption_key_id }));
    const recipientNode = await keyNode(names);
    node.services.directory.set('k.test', recipientNode.url);

    const expected: Record<string, ReturnType<typeof refusal>> = {
      forged: refusal(422, 'SVC_ERR_RECIPIENT_KEY_INVALID', "k.test/forged's invalid encryption key assertion signature"),
      expired: refusal(422, 'SVC_ERR_RECIPIENT_KEY_EXPIRED', "k.test/expired's encryption key assertion is expired"),
      early: refusal(422, 'SVC_ERR_RECIPIENT_KEY_EXPIRED', "k.test/early's encryption key assertion is not valid yet at this node's time"),
      otherdid: refusal(
        422,
        'SVC_ERR_RECIPIENT_KEY_WRONG_IDENTITY',
        /^k\.test\/otherdid's encryption key assertion names did:key:\S+, not its current did:key$/,
      ),
      otherid: refusal(422, 'SVC_ERR_RECIPIENT_KEY_WRONG_IDENTITY', /^k\.test\/otherid's encryption key assertion names another did:svc than its did:svc:/),
      nostableid: refusal(422, 'SVC_ERR_RECIPIENT_KEY_WRONG_IDENTITY'),
      unknownfield: refusal(422, 'SVC_ERR_RECIPIENT_KEY_INVALID', "k.test/unknownfield's encryption key assertion has an unknown field note"),
      badkeyid: refusal(422, 'SVC_ERR_RECIPIENT_KEY_INVALID', "k.test/badkeyid's encryption_key_id does not match encryption_public_key"),
    };
    for (const [name, want] of Object.entries(expected)) expect(await find(`k.test/${name}`), name).toMatchObject(want);
  });

  it('is refused when no node is known, the address does not exist, or its node publishes no key for it', async () => {
    const carol = identity('carol');
    const nodid = identity('nodid');
    nodid.served.address = { ...nodid.served.address, did_aw: null };
    const nokey = identity('nokey');
    nokey.served.key = { did_aw: nokey.stableId, current_did_key: nokey.party.did };
    const lost = identity('lost');
    lost.served.key = undefined;
    const recipientNode = await keyNode({ carol: carol.served, nodid: nodid.served, nokey: nokey.served, lost: lost.served });
    node.services.directory.set('k.test', recipientNode.url);

    expect(await find('nowhere.test/carol')).toMatchObject(
      refusal(
        404,
        'SVC_ERR_RECIPIENT_NODE_UNKNOWN',
        "No node is known for nowhere.test (no peer entry and no node= in DNS), so nowhere.test/carol's encryption key cannot be looked up",
      ),
    );
    expect(await find('k.test/ghost')).toMatchObject(refusal(404, 'SVC_ERR_RECIPIENT_NOT_FOUND', 'k.test/ghost does not exist on its node'));
    expect(await find('k.test/nodid')).toMatchObject(
      refusal(409, 'SVC_ERR_RECIPIENT_KEY_NOT_PUBLISHED', 'k.test/nodid has no did:svc on its node, so it publishes no encryption key'),
    );
    expect(await find('k.test/nokey')).toMatchObject(
      refusal(409, 'SVC_ERR_RECIPIENT_KEY_NOT_PUBLISHED', "k.test/nokey's node publishes no encryption key for it valid now"),
    );
    expect(await find('k.test/lost')).toMatchObject(refusal(409, 'SVC_ERR_RECIPIENT_KEY_NOT_PUBLISHED', /^k\.test\/lost's node does not know its did:svc /));
    expect(await find('not an address')).toMatchObject(refusal(422, 'SVC_ERR_ADDRESS_MALFORMED'));
  });

  it('is unavailable, saying why, when its node answers too much, an error, a redirect, nonsense or too late', async () => {
    const answers: Record<string, Served['raw']> = {
      huge: (response, server) => stream(server, response, 4 * 1024 * 1024),
      failing: (response) => json(response, 500, { detail: 'stack trace at db.internal:5432' }),
      moved: (response) => response.writeHead(302, { location: 'http://127.0.0.1:1/' }).end(),
      html: (response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<html>hi</html>'),
      otherdid: (response) => json(response, 200, { did_aw: 'did:svc:zsomeoneelse', current_did_key: 'x', encryption_key: null }),
      slow: async (response) => {
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        if (!response.destroyed) json(response, 200, {});
      },
    };
    const names: Record<string, Served> = {};
    for (const [name, raw] of Object.entries(answers)) names[name] = { ...identity(name).served, raw };
    const recipientNode = await keyNode(names);
    node.services.directory.set('k.test', recipientNode.url);

    const why: Record<string, string> = {
      huge: 'answer too large',
      failing: 'it answered 500',
      moved: 'refused: it answered with a redirect, which is never followed',
      html: 'answer not JSON',
      otherdid: 'its answer for the did:svc is not that did:svc’s key',
      slow: 'timed out',
    };
    for (const [name, reason] of Object.entries(why)) {
      expect(await find(`k.test/${name}`), name).toMatchObject(
        refusal(503, 'SVC_ERR_PEER_UNAVAILABLE', `Could not get k.test/${name}'s encryption key from its node (${reason}); try again later`),
      );
    }
    // The huge answer was cut at the cap, not read to its end.
    expect(recipientNode.bytesWritten).toBeLessThan(4 * 1024 * 1024);
  });

  it('is refused from memory for a few seconds only', async () => {
    const recipientNode = await keyNode({});
    node.services.directory.set('k.test', recipientNode.url);
    expect(await find('k.test/ghost')).toMatchObject(refusal(404, 'SVC_ERR_RECIPIENT_NOT_FOUND'));
    expect(await find('k.test/ghost')).toMatchObject(refusal(404, 'SVC_ERR_RECIPIENT_NOT_FOUND'));
    expect(recipientNode.requests).toHaveLength(1);
    node.advance(REMOTE_KEY_FAILURE_TTL_MS);
    expect(await find('k.test/ghost')).toMatchObject(refusal(404, 'SVC_ERR_RECIPIENT_NOT_FOUND'));
    expect(recipientNode.requests).toHaveLength(2);
  });

  it('is looked up at the node DNS names, which is reached only at a public address, and waits when DNS fails', async () => {
    const recipientNode = await keyNode({ carol: identity('carol').served });
    table.records['_svcid.k.test'] = [[renderDnsRecord({ controllerDid: testParty().did, origin: 'https://node.k.test' })]];
    table.addresses['node.k.test'] = ['127.0.0.1'];
    expect(await find('k.test/carol')).toMatchObject(
      refusal(
        503,
        'SVC_ERR_PEER_UNAVAILABLE',
        "Could not get k.test/carol's encryption key from its node (refused: its address is not a public one); try again later",
      ),
    );
    expect(recipientNode.connections).toBe(0);

    failing.add('_svcid.f.test');
    expect(await find('f.test/carol')).toMatchObject(
      refusal(503, 'SVC_ERR_PEER_UNAVAILABLE', "Could not look up f.test in DNS here to find f.test/carol's encryption key; try again later"),
    );
  });
});

describe('the addresses remembered', () => {
  it('are at most their limit, the oldest forgotten first', async () => {
    const lookup = new RemoteEncryptionKeyLookup(node.ctx, node.services.directory, node.services.remote, undefined, { maxEntries: 2 });
    for (const name of ['a', 'b', 'c']) expect(await lookup.find(`nowhere.test/${name}`).catch((error: unknown) => error)).toBeInstanceOf(ServiceError);
    expect(lookup.size).toBe(2);
  });
});
