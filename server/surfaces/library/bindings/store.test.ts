/**
 * The bindings' store on a real encrypted database (the shipped migrations): what its mapper
 * decodes, one binding per agent, and bindings gone with their profile.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { T0, openScratchDatabase, shelve } from '../../../../test/support/library-store.ts';
import type { Db } from '../../../context.ts';
import { findBinding, listBindings, toBinding, upsertBinding } from './store.ts';
import { deleteShelfProfile } from '../shelf/store/shelf-profiles.ts';

let db: Db;
let close: () => void;

beforeEach(() => ({ db, close } = openScratchDatabase()));
afterEach(() => close());

describe('bindings', () => {
  it('replaces an agent’s binding, lists by agent id and maps without team id', () => {
    shelve(db, 't', 'p', ['0.1.0', '0.2.0']);
    const bind = (agentId: string, version: string) =>
      upsertBinding(db, {
        team_id: 't',
        agent_id: agentId,
        profile_ref: 'p',
        profile_version: version,
        profile_digest: `sv-p-${version}`,
        source_blueprint_ref: null,
        bound_at: T0,
      });
    bind('b-agent', '0.1.0');
    bind('a-agent', '0.1.0');
    bind('b-agent', '0.2.0');
    expect(listBindings(db, 't').map((row) => [row.agent_id, row.profile_version])).toEqual([
      ['a-agent', '0.1.0'],
      ['b-agent', '0.2.0'],
    ]);
    expect(toBinding(findBinding(db, 't', 'b-agent')!)).toEqual({
      agent_id: 'b-agent',
      profile_ref: 'p',
      profile_version: '0.2.0',
      profile_digest: 'sv-p-0.2.0',
      source_blueprint_ref: null,
      bound_at: T0,
    });
    expect(findBinding(db, 'other', 'b-agent')).toBeUndefined();
    // Deleting the profile takes its bindings with it.
    deleteShelfProfile(db, 't', 'p');
    expect(listBindings(db, 't')).toEqual([]);
  });
});
