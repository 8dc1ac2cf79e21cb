/**
 * The owner's sessions announce that sessions ended themselves, once the change has committed,
 * whoever ended them (the HTTP routes, the CLI, a test calling the service): revoking one, all
 * others, or the cap at sign-in. A refused revoke, and a sign-in that ends nothing, announce
 * nothing. A real encrypted database; no HTTP.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openNodeDatabase } from '../../test/support/database.ts';
import type { Database } from '../store/database.ts';
import { MAX_OWNER_SESSIONS, OwnerSessions } from './owner-sessions.ts';

let dataDir: string;
let opened: { db: Database; close(): void };
let sessions: OwnerSessions;
/** Each announcement, and whether its write had committed by then. */
let ended: boolean[] = [];

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'svc-node-owner-sessions-'));
  return () => rmSync(dataDir, { recursive: true, force: true });
});
beforeAll(async () => {
  opened = await openNodeDatabase(dataDir);
  return () => opened.close();
});
beforeAll(() => {
  let ms = Date.parse('2026-06-01T10:00:00Z');
  // Each sign-in a second after the last, so "used longest ago" is well defined.
  sessions = new OwnerSessions(opened.db, { now: () => new Date((ms += 1000)) }, () => ended.push(!opened.db.inTransaction));
});
beforeEach(() => {
  ended = [];
});

describe('ended sessions, announced by the service', () => {
  it('announces a revoke, and revoking every other, after the write commits', () => {
    const one = sessions.create('one').session.session_id;
    const keep = sessions.create('keep').session.session_id;
    sessions.create('other');
    expect(ended).toEqual([]);
    sessions.revoke(one);
    expect(ended).toEqual([true]);
    expect(sessions.revokeOthers(keep)).toBe(1);
    expect(ended).toEqual([true, true]);
  });

  it('announces nothing for a refused revoke, or for revoking others when there are none', () => {
    const keep = sessions.create('alone').session.session_id;
    sessions.revokeOthers(keep);
    ended = [];
    expect(() => sessions.revoke('00000000-0000-4000-8000-000000000000')).toThrow(/No session/);
    expect(sessions.revokeOthers(keep)).toBe(0);
    expect(ended).toEqual([]);
  });

  it(`announces the session the cap of ${MAX_OWNER_SESSIONS} ends at sign-in`, () => {
    sessions.revokeOthers(null);
    for (let i = 0; i < MAX_OWNER_SESSIONS; i++) sessions.create(`browser ${i}`);
    ended = [];
    sessions.create('one too many');
    expect(ended).toEqual([true]);
    expect(sessions.list(null)).toHaveLength(MAX_OWNER_SESSIONS);
  });
});
