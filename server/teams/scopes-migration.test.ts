/**
 * Migration 0018 on a database written before it: the owner member gets every scope, every other
 * certificate keeps its scopes plus library:read and library:write (the shelf work it could do
 * before), and editable links minted by certificates revoked earlier are closed.
 */
import type SQLite from 'better-sqlite3-multiple-ciphers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { databaseBefore, type DatabaseBefore } from '../../test/support/migrations.ts';
import { TEAM_SCOPES } from './scopes.ts';

const VERSION = 18;

let before: DatabaseBefore;
let db: SQLite.Database;

beforeEach(() => {
  before = databaseBefore(VERSION, { foreignKeys: true });
  db = before.db;
});
afterEach(() => before.close());

function certificate(id: string, scopes: string[], revokedAt: string | null = null): void {
  db.prepare(
    `INSERT INTO team_certificates (certificate_id, team_id, member_did_key, alias, lifetime, issued_at, certificate, scopes, revoked_at)
     VALUES (?, 'team:m.test', ?, ?, 'persistent', '2026-01-01T00:00:00Z', '{}', ?, ?)`,
  ).run(id, `did:key:z${id}`, id, JSON.stringify(scopes), revokedAt);
}

function link(id: string, certificateId: string, editable: boolean): void {
  db.prepare(
    `INSERT INTO present_links (token_sha256, link_id, team_id, document_id, version_number, editable, expires_at, created_by_did_key,
       created_by_alias, certificate_id, created_at)
     VALUES (?, ?, 'team:m.test', 'doc-1', 1, ?, '2099-01-01T00:00:00Z', 'did:key:z', 'a', ?, '2026-01-01T00:00:00Z')`,
  ).run(`sha-${id}`, id, editable ? 1 : 0, certificateId);
}

const scopesOf = (id: string): string[] =>
  JSON.parse(db.prepare(`SELECT scopes FROM team_certificates WHERE certificate_id = ?`).pluck().get(id) as string) as string[];
const revokedAt = (id: string): string | null => db.prepare(`SELECT revoked_at FROM present_links WHERE link_id = ?`).pluck().get(id) as string | null;

describe(`migration ${VERSION}`, () => {
  it('grants the owner every scope and the others library:read and library:write, and closes revoked members’ editable links', () => {
    db.prepare(
      `INSERT INTO teams (team_id, name, domain, key_id, team_did_key, owner_certificate_id, created_at)
       VALUES ('team:m.test', 'team', 'm.test', 'k', 'did:key:zteam', 'owner', '2026-01-01T00:00:00Z')`,
    ).run();
    certificate('owner', ['docs:read', 'docs:write']);
    certificate('writer', ['docs:read', 'docs:write']);
    certificate('reader', ['docs:read']);
    certificate('none', []);
    certificate('gone', ['docs:read', 'docs:write'], '2026-02-01T00:00:00Z');
    db.prepare(
      `INSERT INTO documents (document_id, team_id, slug, title, body, current_version, created_at, updated_at)
       VALUES ('doc-1', 'team:m.test', 'doc', 'Doc', X'', 1, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')`,
    ).run();
    link('gone-edit', 'gone', true);
    link('gone-read', 'gone', false);
    link('writer-edit', 'writer', true);

    expect(before.upgrade().applied).toEqual([VERSION]);

    // Sorted and without duplicates, as TeamService writes them.
    expect(scopesOf('owner')).toEqual([...TEAM_SCOPES].sort());
    expect(scopesOf('writer')).toEqual(['docs:read', 'docs:write', 'library:read', 'library:write']);
    expect(scopesOf('reader')).toEqual(['docs:read', 'library:read', 'library:write']);
    expect(scopesOf('none')).toEqual(['library:read', 'library:write']);
    expect(scopesOf('gone')).toEqual(['docs:read', 'docs:write', 'library:read', 'library:write']);
    expect(revokedAt('gone-edit')).toBe('2026-02-01T00:00:00Z');
    expect(revokedAt('gone-read')).toBeNull();
    expect(revokedAt('writer-edit')).toBeNull();
  });
});
