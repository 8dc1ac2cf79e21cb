/**
 * The teams store on a real encrypted database: the membership rule (an unrevoked certificate for
 * the identity's current did:key or its did:svc, optionally holding a scope), the team and member
 * mappers, and the certificate queries.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useStoreDatabase } from '../../test/support/store-database.ts';
import {
  activeAliasTaken,
  activeMemberCount,
  certificatesOf,
  findCertificate,
  findTeam,
  insertCertificate,
  insertTeam,
  listTeams,
  revokeCertificate,
  teamDidKeyOf,
  teamsOfMember,
  toMember,
  toTeam,
  type CertificateRow,
} from './store.ts';

const db = useStoreDatabase();
const T = '2026-01-01T00:00:00.000Z';

function team(teamId: string): void {
  insertTeam(db(), {
    team_id: teamId,
    name: teamId.split(':')[0]!,
    domain: 'teams.test',
    key_id: `key-${teamId}`,
    team_did_key: `did:key:zTeam-${teamId}`,
    owner_certificate_id: `owner-${teamId}`,
    created_at: T,
  });
}

function certificate(
  id: string,
  teamId: string,
  member: { didKey: string; didAw?: string; scopes?: string[]; issuedAt?: string },
): Omit<CertificateRow, 'revoked_at'> {
  const row = {
    certificate_id: id,
    team_id: teamId,
    member_did_key: member.didKey,
    member_did_aw: member.didAw ?? null,
    member_address: null,
    alias: id,
    lifetime: 'persistent' as const,
    issued_at: member.issuedAt ?? T,
    certificate: '{}',
    scopes: JSON.stringify(member.scopes ?? ['docs:read']),
    member_key_id: null,
  };
  insertCertificate(db(), row);
  return row;
}

beforeAll(() => {
  for (const id of ['b:teams.test', 'a:teams.test', 'c:teams.test']) team(id);
});

describe('team membership', () => {
  it('counts a certificate for the identity’s current did:key or for its did:svc', () => {
    certificate('by-key', 'a:teams.test', { didKey: 'did:key:zAnn' });
    certificate('by-svc', 'b:teams.test', { didKey: 'did:key:zAnnOld', didAw: 'did:svc:ann' });
    expect(teamsOfMember(db(), { did_key: 'did:key:zAnn', did_aw: 'did:svc:ann' })).toEqual(['a:teams.test', 'b:teams.test']);
    expect(teamsOfMember(db(), { did_key: 'did:key:zAnn', did_aw: null })).toEqual(['a:teams.test']);
    expect(teamsOfMember(db(), { did_key: 'did:key:zNobody', did_aw: null })).toEqual([]);
  });

  it('ends with the certificate’s revocation', () => {
    certificate('revoked', 'c:teams.test', { didKey: 'did:key:zBen' });
    expect(teamsOfMember(db(), { did_key: 'did:key:zBen', did_aw: null })).toEqual(['c:teams.test']);
    revokeCertificate(db(), 'revoked', '2026-01-02T00:00:00.000Z');
    expect(teamsOfMember(db(), { did_key: 'did:key:zBen', did_aw: null })).toEqual([]);
  });

  it('with a scope, counts only certificates granting it', () => {
    certificate('reader', 'a:teams.test', { didKey: 'did:key:zCyd', scopes: ['docs:read'] });
    certificate('writer', 'b:teams.test', { didKey: 'did:key:zCyd', scopes: ['docs:read', 'library:write'] });
    expect(teamsOfMember(db(), { did_key: 'did:key:zCyd', did_aw: null }, 'library:write')).toEqual(['b:teams.test']);
    expect(teamsOfMember(db(), { did_key: 'did:key:zCyd', did_aw: null }, 'docs:read')).toEqual(['a:teams.test', 'b:teams.test']);
    expect(teamsOfMember(db(), { did_key: 'did:key:zCyd', did_aw: null }, 'team:admin')).toEqual([]);
  });
});

describe('the teams store', () => {
  it('maps a team without its custody key id, with its member count', () => {
    const row = findTeam(db(), 'a:teams.test')!;
    expect(toTeam(row, 3)).toEqual({
      team_id: 'a:teams.test',
      name: 'a',
      domain: 'teams.test',
      team_did_key: 'did:key:zTeam-a:teams.test',
      owner_certificate_id: 'owner-a:teams.test',
      created_at: T,
      member_count: 3,
    });
    expect(listTeams(db()).map((t) => t.team_id)).toEqual(['a:teams.test', 'b:teams.test', 'c:teams.test']);
    expect(teamDidKeyOf(db(), 'b:teams.test')).toBe('did:key:zTeam-b:teams.test');
    expect(teamDidKeyOf(db(), 'none:teams.test')).toBeUndefined();
  });

  it('counts and reserves aliases of unrevoked certificates only', () => {
    expect(activeMemberCount(db(), 'c:teams.test')).toBe(0);
    expect(activeAliasTaken(db(), 'c:teams.test', 'revoked')).toBe(false);
    expect(activeAliasTaken(db(), 'a:teams.test', 'reader')).toBe(true);
    expect(activeMemberCount(db(), 'a:teams.test')).toBe(2);
  });

  it('lists a team’s certificates in issue order and maps a member with its scopes', () => {
    certificate('late', 'c:teams.test', { didKey: 'did:key:zLate', issuedAt: '2026-01-03T00:00:00.000Z' });
    certificate('early', 'c:teams.test', { didKey: 'did:key:zEarly', issuedAt: '2026-01-00T00:00:00.000Z', scopes: ['docs:write', 'docs:read'] });
    expect(certificatesOf(db(), 'c:teams.test').map((c) => c.certificate_id)).toEqual(['early', 'revoked', 'late']);
    const early = findCertificate(db(), 'early')!;
    expect(toMember(early, 'early')).toMatchObject({ certificate_id: 'early', scopes: ['docs:write', 'docs:read'], owner: true, revoked_at: null });
    expect(toMember(findCertificate(db(), 'revoked')!, 'early')).toMatchObject({ owner: false, revoked_at: '2026-01-02T00:00:00.000Z' });
    expect(findCertificate(db(), 'none')).toBeUndefined();
  });
});
