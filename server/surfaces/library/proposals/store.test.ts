/**
 * The proposals' store on a real encrypted database (the shipped migrations): what its mapper
 * decodes, first-write-wins decisions, and the filters and their order.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { T0, openScratchDatabase, shelve } from '../../../../test/support/library-store.ts';
import type { Db } from '../../../context.ts';
import { decideProposal, findProposal, insertProposal, listProposals, toProposal } from './store.ts';

let db: Db;
let close: () => void;

beforeEach(() => ({ db, close } = openScratchDatabase()));
afterEach(() => close());

describe('proposals', () => {
  const draft = (id: string, profileRef: string, createdAt = T0) => ({
    proposal_id: id,
    team_id: 't',
    target: 'profile' as const,
    profile_ref: profileRef,
    content: { schema: 'x', assets: [] },
    summary: null,
    rationale: 'why',
    base_profile_version: '0.1.0',
    created_by_alias: 'alice',
    created_by_acting_as: null,
    created_at: createdAt,
  });

  it('stores an open proposal and maps it without team id or minted version', () => {
    shelve(db, 't', 'p', ['0.1.0']);
    const stored = insertProposal(db, draft('p1', 'p'));
    expect(stored).toEqual({
      proposal_id: 'p1',
      target: 'profile',
      profile_ref: 'p',
      status: 'open',
      summary: null,
      rationale: 'why',
      base_profile_version: '0.1.0',
      created_by_alias: 'alice',
      created_by_acting_as: null,
      created_at: T0,
      decided_by_alias: null,
      decided_by_acting_as: null,
      decided_at: null,
      decision_reason: null,
      content: { schema: 'x', assets: [] },
    });
    expect(toProposal(findProposal(db, 't', 'p1')!)).toEqual(stored);
    expect(findProposal(db, 'other-team', 'p1')).toBeUndefined();
  });

  it('records a decision with its minted version', () => {
    shelve(db, 't', 'p', ['0.1.0']);
    insertProposal(db, draft('p1', 'p'));
    const minted = { profile_ref: 'p', version: '0.1.1', digest: 'd', supersedes_profile_version: '0.1.0', supersedes_profile_digest: 'd0' };
    decideProposal(db, 'p1', { status: 'approved', decided_by_alias: 'bob', decided_by_acting_as: null, decided_at: 'later', decision_reason: null, minted });
    expect(toProposal(findProposal(db, 't', 'p1')!)).toMatchObject({
      status: 'approved',
      decided_by_alias: 'bob',
      decided_by_acting_as: null,
      decided_at: 'later',
      minted,
    });
  });

  it('keeps the identities the app acted as when it submitted and when it decided, each on its own', () => {
    shelve(db, 't', 'p', ['0.1.0']);
    const alice = { agent_id: 'agent-alice', alias: 'alice', name: 'Alice Liddell', address: 'example.com/alice' };
    const bob = { agent_id: 'agent-bob', alias: 'bob', name: 'bob', address: null };
    expect(insertProposal(db, { ...draft('p1', 'p'), created_by_alias: 'owner', created_by_acting_as: alice })).toMatchObject({
      created_by_acting_as: alice,
      decided_by_acting_as: null,
    });
    decideProposal(db, 'p1', {
      status: 'rejected',
      decided_by_alias: 'owner',
      decided_by_acting_as: bob,
      decided_at: 'later',
      decision_reason: null,
      minted: null,
    });
    expect(toProposal(findProposal(db, 't', 'p1')!)).toMatchObject({
      created_by_alias: 'owner',
      created_by_acting_as: alice,
      decided_by_alias: 'owner',
      decided_by_acting_as: bob,
    });
  });

  it('lists newest first (insertion order among equal times), filtered by status and profile', () => {
    shelve(db, 't', 'p', ['0.1.0']);
    shelve(db, 't', 'q', ['0.1.0']);
    insertProposal(db, draft('old', 'p', '2025-01-01T00:00:00.000Z'));
    insertProposal(db, draft('same-1', 'p'));
    insertProposal(db, draft('same-2', 'q'));
    decideProposal(db, 'same-1', {
      status: 'rejected',
      decided_by_alias: 'bob',
      decided_by_acting_as: null,
      decided_at: T0,
      decision_reason: 'no',
      minted: null,
    });
    const ids = (filter: Parameters<typeof listProposals>[2]) => listProposals(db, 't', filter).map((row) => row.proposal_id);
    expect(ids({})).toEqual(['same-2', 'same-1', 'old']);
    expect(ids({ status: 'open' })).toEqual(['same-2', 'old']);
    expect(ids({ profile_ref: 'p' })).toEqual(['same-1', 'old']);
    expect(ids({ status: 'open', profile_ref: 'p' })).toEqual(['old']);
  });
});
