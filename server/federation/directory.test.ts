/**
 * Which node answers for a domain (directory.ts), on a real encrypted database with DNS as a table
 * that can be made to fail: the owner's peer table first, then a `_svcid` record's `node=`, and
 * what a peer's URL may be.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FEDERATION_VERSION } from '../../contract/core/federation.ts';
import { renderDnsRecord } from '../crypto/dns-txt.ts';
import { ServiceError } from '../errors.ts';
import { testKey } from '../../test/support/keys.ts';
import { failableDns, startUnitNode, type UnitNode } from '../../test/support/unit-node.ts';
import { peerOrigin } from './directory.ts';

let node: UnitNode;
/** DNS names in `failing` fail (ETIMEOUT), on top of the table. */
const { dns, table, failing, reset: resetDns } = failableDns('ETIMEOUT');

beforeEach(async () => {
  resetDns();
  node = await startUnitNode({}, dns);
});
afterEach(() => node.close());

const directory = () => node.services.directory;
/** What `call` throws, as the ServiceError it must be. */
function refusal(call: () => unknown): ServiceError {
  try {
    call();
  } catch (error) {
    if (error instanceof ServiceError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('peerOrigin', () => {
  it('keeps an http(s) origin, in its normal form', () => {
    expect(peerOrigin('https://node.b.test')).toBe('https://node.b.test');
    expect(peerOrigin('HTTPS://Node.B.Test:443/')).toBe('https://node.b.test');
    expect(peerOrigin('http://127.0.0.1:7000')).toBe('http://127.0.0.1:7000');
  });

  it('refuses anything but an origin: another scheme, a path, a query, a fragment, credentials, no URL', () => {
    for (const value of [
      'ftp://node.b.test',
      'file:///etc/passwd',
      'https://node.b.test/v1',
      'https://node.b.test/?a=1',
      'https://node.b.test/#x',
      'https://u:p@node.b.test',
      'https://u@node.b.test',
      'node.b.test',
      '',
    ]) {
      expect(peerOrigin(value), value).toBeNull();
    }
  });
});

describe('the node directory', () => {
  it('sets, replaces and removes a peer by its normalised domain, refusing a bad domain or URL with the field named', () => {
    expect(directory().set('B.Test.', 'https://node.b.test/')).toMatchObject({ domain: 'b.test', url: 'https://node.b.test' });
    expect(directory().set('b.test', 'http://127.0.0.1:7000')).toMatchObject({ domain: 'b.test', url: 'http://127.0.0.1:7000' });
    expect(directory().peerUrl('b.test')).toBe('http://127.0.0.1:7000');
    const badDomain = refusal(() => directory().set('not a domain', 'https://node.b.test'));
    expect(badDomain).toMatchObject({ statusCode: 422, code: 'SVC_ERR_VALIDATION' });
    expect(badDomain.message).toBe('body.domain: not a valid domain name');
    const badUrl = refusal(() => directory().set('c.test', 'https://node.c.test/path'));
    expect(badUrl).toMatchObject({ statusCode: 422, code: 'SVC_ERR_VALIDATION' });
    expect(badUrl.message).toBe('body.url: must be an http(s) origin such as https://node.example.com');
    expect(directory().remove('B.TEST')).toEqual({ domain: 'b.test', removed: true });
    expect(refusal(() => directory().remove('b.test'))).toMatchObject({ statusCode: 404, code: 'SVC_ERR_PEER_NOT_FOUND' });
  });

  it('lists each peer with what waits for it in the outbox', () => {
    directory().set('b.test', 'https://node.b.test');
    const project = node.services.projects.create({ slug: 'p' });
    const ann = node.services.identities.create(project.project_id, { alias: 'ann' });
    const message = {
      v: FEDERATION_VERSION,
      kind: 'mail',
      message_id: randomUUID(),
      from: 'a.test/ann',
      from_did: 'did:key:zAnn',
      from_stable_id: null,
      to: 'b.test/bob',
      subject: 's',
      body: 'b',
      priority: 'normal',
      timestamp: 't',
      signature: 's',
      signed_payload: 'p',
    } as const;
    node.services.outbox.enqueue(ann.agent_id, 'b.test', message);
    const [peer] = directory().list();
    expect(peer!.queue).toMatchObject({ queued: 1, last_error: null });
    expect(peer!.queue.oldest_queued_at).toBe(peer!.queue.next_attempt_at);
  });

  it("finds a domain's node in the peer table first, then in its _svcid record's node=, found by DNS only at what DNS says", async () => {
    const controllerDid = testKey().didKey;
    table.records['_svcid.c.test'] = [[renderDnsRecord({ controllerDid, origin: 'https://node.c.test' })]];
    table.records['_svcid.d.test'] = [[renderDnsRecord({ controllerDid })]];
    expect(await directory().find('c.test')).toEqual({ url: 'https://node.c.test', via: 'dns' });
    expect(await directory().find('d.test')).toBeNull();
    expect(await directory().find('e.test')).toBeNull();
    directory().set('c.test', 'http://127.0.0.1:7000');
    expect(await directory().find('c.test')).toEqual({ url: 'http://127.0.0.1:7000', via: 'peer' });
  });

  it('rejects when DNS could not be asked (it proved nothing), where the outbox only hears there is no node yet', async () => {
    failing.add('_svcid.c.test');
    await expect(directory().find('c.test')).rejects.toThrow('ETIMEOUT');
    expect(await directory().locate('c.test')).toBeNull();
    // The peer table needs no DNS.
    directory().set('c.test', 'https://node.c.test');
    expect(await directory().locate('c.test')).toEqual({ url: 'https://node.c.test', via: 'peer' });
  });
});
