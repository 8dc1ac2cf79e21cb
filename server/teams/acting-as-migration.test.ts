/**
 * Migration 0036 on a database written before it: proposals and present links made then keep
 * every field, and name no acting identity (the app shows them as it did), while new rows can.
 */
import type SQLite from 'better-sqlite3-multiple-ciphers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { databaseBefore, type DatabaseBefore } from '../../test/support/migrations.ts';
import { insertDocument } from '../surfaces/docs/documents/store/documents.ts';
import { listTeamLinks, toPresentLinkSummary } from '../surfaces/docs/present/store.ts';
import { decideProposal, findProposal, toProposal } from '../surfaces/library/proposals/store.ts';

const VERSION = 36;
const TEAM = 'team:m.test';
const T0 = '2026-01-01T00:00:00.000Z';

let before: DatabaseBefore;
let db: SQLite.Database;

beforeEach(() => {
  before = databaseBefore(VERSION);
  db = before.db;
  // The rows under test stand alone: no shelf profile or team behind them is needed to read them back.
  db.pragma('foreign_keys = OFF');
});
afterEach(() => before.close());

describe(`migration ${VERSION}`, () => {
  it('keeps older proposals and present links as they were, naming no acting identity', () => {
    db.prepare(
      `INSERT INTO proposals (proposal_id, team_id, target, profile_ref, status, content, summary, rationale, base_profile_version,
         created_by_alias, created_at, decided_by_alias, decided_at)
       VALUES ('p1', ?, 'profile', 'worker', 'approved', '{}', NULL, NULL, '0.1.0', 'scout', ?, 'owner', ?)`,
    ).run(TEAM, T0, T0);
    db.prepare(
      `INSERT INTO proposals (proposal_id, team_id, target, profile_ref, status, content, created_by_alias, created_at)
       VALUES ('p2', ?, 'profile', 'worker', 'open', '{}', 'scout', ?)`,
    ).run(TEAM, T0);
    insertDocument(db, { document_id: 'doc-1', team_id: TEAM, slug: 'doc', title: 'Doc', created_at: T0 });
    db.prepare(
      `INSERT INTO present_links (token_sha256, link_id, team_id, document_id, version_number, editable, expires_at, created_by_did_key,
         created_by_alias, certificate_id, created_at)
       VALUES ('sha', 'link-1', ?, 'doc-1', 1, 0, '2099-01-01T00:00:00Z', 'did:key:z', 'owner', 'cert-owner', ?)`,
    ).run(TEAM, T0);

    expect(before.upgrade().applied).toEqual([VERSION]);

    expect(toProposal(findProposal(db, TEAM, 'p1')!)).toMatchObject({
      status: 'approved',
      created_by_alias: 'scout',
      created_by_acting_as: null,
      decided_by_alias: 'owner',
      decided_by_acting_as: null,
      decided_at: T0,
    });
    expect(toPresentLinkSummary(listTeamLinks(db, TEAM)[0]!)).toMatchObject({ link_id: 'link-1', created_by_alias: 'owner', created_by_acting_as: null });

    // A decision made after the upgrade names who acted.
    const alice = { agent_id: 'agent-alice', alias: 'alice', name: 'Alice', address: 'm.test/alice' };
    decideProposal(db, 'p2', {
      status: 'rejected',
      decided_by_alias: 'owner',
      decided_by_acting_as: alice,
      decided_at: T0,
      decision_reason: null,
      minted: null,
    });
    expect(toProposal(findProposal(db, TEAM, 'p2')!)).toMatchObject({ decided_by_alias: 'owner', decided_by_acting_as: alice });
  });
});
