/**
 * The namespaces store on a real encrypted database: the one "is this our namespace" rule, the
 * namespace mapper and its address count, addresses following their did:svc's current key, the
 * take-back of an empty namespace, and replacement announcements as the wire shows them.
 */
import { describe, expect, it } from 'vitest';
import { useStoreDatabase } from '../../../../test/support/store-database.ts';
import { appendDidLogEntry } from '../did/store.ts';
import {
  addressRowsIn,
  addressRowsOfDid,
  deleteAddress,
  deleteEmptyNodeNamespace,
  findAddressRow,
  findNamespaceRow,
  insertAddress,
  insertNamespace,
  insertReplacementAnnouncement,
  isLocalNamespace,
  namespaceRows,
  namespaceRowsOfController,
  namespaceStanding,
  replacementAnnouncementsOf,
  toAddress,
  toNamespace,
  updateAddressBinding,
  updateNamespaceVerification,
} from './store.ts';

const db = useStoreDatabase();
const T = '2026-01-01T00:00:00.000Z';

function namespace(domain: string, fields: { controller_did?: string; controller_key_id?: string | null } = {}): void {
  insertNamespace(db(), {
    domain,
    controller_did: fields.controller_did ?? 'did:key:zController',
    controller_key_id: fields.controller_key_id ?? null,
    authority: 'owner',
    verification_status: 'unverified',
    last_verified_at: null,
    created_at: T,
    updated_at: T,
  });
}

function address(domain: string, name: string, didKey: string, didAw: string | null = null, createdAt = T): void {
  insertAddress(db(), { domain, name, did_key: didKey, did_aw: didAw, created_at: createdAt, updated_at: createdAt });
}

/** A did:svc whose mapping points at `didKey` (the store checks no signatures). */
function didSvc(didAw: string, didKey: string): void {
  appendDidLogEntry(
    db(),
    {
      did_aw: didAw,
      seq: 1,
      operation: 'register_did',
      previous_did_key: null,
      new_did_key: didKey,
      prev_entry_hash: null,
      entry_hash: `h-${didAw}`,
      state_hash: 's',
      authorized_by: didKey,
      signature: 'sig',
      timestamp: '2026-01-01T00:00:00Z',
    },
    T,
  );
}

describe('is this our namespace', () => {
  it('is true exactly for the domains registered here, as spelled', () => {
    namespace('ours.example');
    expect(isLocalNamespace(db(), 'ours.example')).toBe(true);
    expect(isLocalNamespace(db(), 'theirs.example')).toBe(false);
    expect(isLocalNamespace(db(), 'sub.ours.example')).toBe(false);
  });
});

describe('the namespaces store', () => {
  it('maps a row to the wire namespace with its address count', () => {
    namespace('count.example', { controller_key_id: 'key-1' });
    address('count.example', 'a', 'did:key:zA');
    address('count.example', 'b', 'did:key:zB');
    const row = findNamespaceRow(db(), 'count.example');
    expect(row).toMatchObject({ address_count: 2, controller_key_id: 'key-1' });
    expect(toNamespace(row!)).toEqual({
      domain: 'count.example',
      controller_did: 'did:key:zController',
      verification_status: 'unverified',
      last_verified_at: null,
      node_controlled: true,
      authority: 'owner',
      address_count: 2,
      created_at: T,
      updated_at: T,
    });
    expect(findNamespaceRow(db(), 'none.example')).toBeUndefined();
    expect(namespaceStanding(db(), 'count.example')).toEqual({ authority: 'owner', verification_status: 'unverified' });
  });

  it('lists by domain, and by controller', () => {
    namespace('b-other.example', { controller_did: 'did:key:zOther' });
    namespace('a-other.example', { controller_did: 'did:key:zOther' });
    const domains = namespaceRows(db()).map((row) => row.domain);
    expect(domains).toEqual([...domains].sort());
    expect(namespaceRowsOfController(db(), 'did:key:zOther').map((row) => row.domain)).toEqual(['a-other.example', 'b-other.example']);
  });

  it('records a verification', () => {
    namespace('verify.example');
    updateNamespaceVerification(db(), 'verify.example', {
      verification_status: 'verified',
      last_verified_at: '2026-02-01T00:00:00.000Z',
      updated_at: '2026-02-01T00:00:00.000Z',
    });
    expect(findNamespaceRow(db(), 'verify.example')).toMatchObject({ verification_status: 'verified', last_verified_at: '2026-02-01T00:00:00.000Z' });
  });

  it('takes back only an empty namespace held by that custody key', () => {
    namespace('empty.example', { controller_key_id: 'key-empty' });
    namespace('used.example', { controller_key_id: 'key-used' });
    address('used.example', 'someone', 'did:key:zSomeone');
    deleteEmptyNodeNamespace(db(), 'empty.example', 'another-key');
    deleteEmptyNodeNamespace(db(), 'used.example', 'key-used');
    expect(isLocalNamespace(db(), 'empty.example')).toBe(true);
    expect(isLocalNamespace(db(), 'used.example')).toBe(true);
    deleteEmptyNodeNamespace(db(), 'empty.example', 'key-empty');
    expect(isLocalNamespace(db(), 'empty.example')).toBe(false);
  });
});

describe('the addresses store', () => {
  it('reports the current key of the did:svc an address follows, and its own key otherwise', () => {
    namespace('addr.example');
    didSvc('did:svc:follow', 'did:key:zCurrent');
    address('addr.example', 'follows', 'did:key:zOld', 'did:svc:follow');
    address('addr.example', 'plain', 'did:key:zPlain');
    const follows = findAddressRow(db(), 'addr.example', 'follows');
    expect(follows).toMatchObject({ did_key: 'did:key:zCurrent', did_aw: 'did:svc:follow' });
    expect(toAddress(follows!)).toMatchObject({ address: 'addr.example/follows', did_key: 'did:key:zCurrent', current_did_key: 'did:key:zCurrent' });
    expect(Object.keys(toAddress(follows!))).toEqual(['domain', 'name', 'did_key', 'did_aw', 'created_at', 'updated_at', 'address', 'current_did_key']);
    expect(findAddressRow(db(), 'addr.example', 'plain')?.did_key).toBe('did:key:zPlain');
    expect(addressRowsIn(db(), 'addr.example').map((row) => row.name)).toEqual(['follows', 'plain']);
  });

  it('lists a did:svc’s addresses oldest first, and rebinds and removes them', () => {
    namespace('z.example');
    namespace('y.example');
    didSvc('did:svc:many', 'did:key:zMany');
    address('z.example', 'first', 'did:key:zMany', 'did:svc:many', '2026-01-01T00:00:00.000Z');
    address('y.example', 'second', 'did:key:zMany', 'did:svc:many', '2026-01-02T00:00:00.000Z');
    address('y.example', 'also-second', 'did:key:zMany', 'did:svc:many', '2026-01-02T00:00:00.000Z');
    expect(addressRowsOfDid(db(), 'did:svc:many').map((row) => `${row.domain}/${row.name}`)).toEqual([
      'z.example/first',
      'y.example/also-second',
      'y.example/second',
    ]);
    updateAddressBinding(db(), 'z.example', 'first', { didKey: 'did:key:zElse', didAw: null }, '2026-01-03T00:00:00.000Z');
    expect(findAddressRow(db(), 'z.example', 'first')).toMatchObject({ did_key: 'did:key:zElse', did_aw: null, updated_at: '2026-01-03T00:00:00.000Z' });
    deleteAddress(db(), 'y.example', 'second');
    expect(findAddressRow(db(), 'y.example', 'second')).toBeUndefined();
  });

  it('shows replacement announcements by address, oldest first', () => {
    for (const [id, createdAt] of [
      ['r2', '2026-01-02T00:00:00.000Z'],
      ['r1', '2026-01-01T00:00:00.000Z'],
    ] as const) {
      insertReplacementAnnouncement(db(), {
        announcement_id: id,
        domain: 'addr.example',
        address_name: 'follows',
        old_did: `did:key:zOld-${id}`,
        new_did: `did:key:zNew-${id}`,
        controller_did: 'did:key:zController',
        timestamp: '2026-01-01T00:00:00Z',
        controller_signature: `sig-${id}`,
        created_at: createdAt,
      });
    }
    expect(replacementAnnouncementsOf(db(), 'addr.example', 'follows')).toEqual([
      {
        address: 'addr.example/follows',
        controller_did: 'did:key:zController',
        new_did: 'did:key:zNew-r1',
        old_did: 'did:key:zOld-r1',
        timestamp: '2026-01-01T00:00:00Z',
        controller_signature: 'sig-r1',
      },
      {
        address: 'addr.example/follows',
        controller_did: 'did:key:zController',
        new_did: 'did:key:zNew-r2',
        old_did: 'did:key:zOld-r2',
        timestamp: '2026-01-01T00:00:00Z',
        controller_signature: 'sig-r2',
      },
    ]);
    expect(replacementAnnouncementsOf(db(), 'addr.example', 'plain')).toEqual([]);
  });
});
