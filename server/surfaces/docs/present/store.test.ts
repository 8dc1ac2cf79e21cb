import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ActingAs } from '../../../../contract/acting-as.ts';
import type { TeamMember } from '../../../auth/team-envelope.ts';
import { insertDocument } from '../documents/store/documents.ts';
import {
  findLinkByToken,
  findTeamLink,
  insertPresentLink,
  listTeamLinks,
  revokeLink,
  toPresentLinkSummary,
  toResolvedLink,
  type NewPresentLinkRow,
} from './store.ts';
import { useStoreDatabase } from '../../../../test/support/store-database.ts';

const db = useStoreDatabase();
const TEAM = 'links:example.com';
const minter: TeamMember = {
  team_id: TEAM,
  certificate_id: 'cert-1',
  alias: 'writer',
  did_key: 'did:key:z6Mk-writer',
  did_aw: 'did:svc:writer',
  address: 'example.com/writer',
  lifetime: 'ephemeral',
  scopes: ['docs:write'],
};

let documentId: string;
beforeAll(() => {
  documentId = randomUUID();
  insertDocument(db(), { document_id: documentId, team_id: TEAM, slug: 'pitch', title: 'The pitch', created_at: '2026-01-01T00:00:00.000Z' });
});

function link(createdAt: string, member: TeamMember = minter, actingAs: ActingAs | null = null): NewPresentLinkRow {
  const row = {
    token_sha256: randomUUID(),
    link_id: randomUUID(),
    document_id: documentId,
    version_number: 1,
    editable: true,
    expires_at: '2026-01-02T00:00:00.000Z',
    minter: member,
    acting_as: actingAs,
    created_at: createdAt,
  };
  insertPresentLink(db(), row);
  return row;
}

describe('the present links store', () => {
  it('resolves a token hash to the link with its document, the minter without an address', () => {
    const made = link('2026-01-01T00:00:00.000Z');
    const row = findLinkByToken(db(), made.token_sha256)!;
    expect(row).toMatchObject({ link_id: made.link_id, team_id: TEAM, slug: 'pitch', title: 'The pitch', editable: 1, revoked_at: null });
    expect(toResolvedLink(row)).toEqual({
      team_id: TEAM,
      document_id: documentId,
      slug: 'pitch',
      title: 'The pitch',
      version: 1,
      editable: true,
      minter: {
        team_id: TEAM,
        certificate_id: 'cert-1',
        alias: 'writer',
        did_key: 'did:key:z6Mk-writer',
        did_aw: 'did:svc:writer',
        address: null,
        lifetime: 'persistent',
        scopes: [],
      },
    });
    expect(findLinkByToken(db(), 'unknown')).toBeUndefined();
  });

  it("finds a team's link by token hash or link_id, never another team's", () => {
    const made = link('2026-01-01T00:01:00.000Z');
    const found = { link_id: made.link_id, revoked_at: null };
    expect(findTeamLink(db(), TEAM, { token_sha256: made.token_sha256 })).toEqual(found);
    expect(findTeamLink(db(), TEAM, { link_id: made.link_id })).toEqual(found);
    expect(findTeamLink(db(), 'other:example.com', { link_id: made.link_id })).toBeUndefined();
    // A link_id is not a token hash.
    expect(findTeamLink(db(), TEAM, { token_sha256: made.link_id })).toBeUndefined();
  });

  it('revokes once: a second revoke keeps the first time', () => {
    const made = link('2026-01-01T00:02:00.000Z');
    revokeLink(db(), made.link_id, '2026-01-01T05:00:00.000Z');
    revokeLink(db(), made.link_id, '2026-01-01T06:00:00.000Z');
    expect(findTeamLink(db(), TEAM, { link_id: made.link_id })?.revoked_at).toBe('2026-01-01T05:00:00.000Z');
  });

  it('lists the team’s links newest first, as summaries without tokens', () => {
    const team = 'listing:example.com';
    const member = { ...minter, team_id: team };
    const older = link('2026-03-01T00:00:00.000Z', member);
    const newer = link('2026-03-02T00:00:00.000Z', member);
    const rows = listTeamLinks(db(), team);
    expect(rows.map((row) => row.link_id)).toEqual([newer.link_id, older.link_id]);
    const summary = toPresentLinkSummary(rows[1]!);
    expect(summary).toEqual({
      link_id: older.link_id,
      slug: 'pitch',
      version: 1,
      editable: true,
      expires_at: '2026-01-02T00:00:00.000Z',
      revoked_at: null,
      created_by_alias: 'writer',
      created_by_acting_as: null,
      created_at: '2026-03-01T00:00:00.000Z',
    });
    expect(Object.values(summary)).not.toContain(older.token_sha256);
  });

  it('keeps the identity the app acted as when it made a link, beside the minter', () => {
    const team = 'acting:example.com';
    const alice: ActingAs = { agent_id: 'agent-alice', alias: 'alice', name: 'Alice Liddell', address: 'example.com/alice' };
    const made = link('2026-04-01T00:00:00.000Z', { ...minter, team_id: team, alias: 'owner' }, alice);
    const [row] = listTeamLinks(db(), team);
    expect(toPresentLinkSummary(row!)).toMatchObject({ link_id: made.link_id, created_by_alias: 'owner', created_by_acting_as: alice });
  });
});
