/**
 * The search index for data that existed before it: built in the background by the
 * migration's backfill, in batches that commit their cursor with their rows, so progress shows
 * and a node stopped halfway resumes where it was. The "before" state is made the way migration
 * 0029 finds a database: rows present, indexes empty, the backfill's cursors at the start.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { SearchResults } from '../../contract/core/search.ts';
import { BACKFILL_BATCH, SearchBackfill } from '../../server/search/backfill.ts';
import { SearchService } from '../../server/search/service.ts';
import { systemClock } from '../../server/clock.ts';
import type { Database } from '../../server/store/database.ts';
import { openNodeDatabase } from '../support/database.ts';
import { expectOk } from '../support/expect.ts';
import { createIdentity, createNodeNamespace, createProject } from '../support/identities.ts';
import { profileFiles } from '../support/library.ts';
import { startTestNode } from '../support/node.ts';
import { addTeamMember, ALL_SCOPES } from '../support/teams.ts';

const MAILS = 4500;
let dataDir: string;
let aliceKey: string;

/** What migration 0029 finds: the rows, no index, every backfill cursor at its start. */
function forgetIndex(db: Database): void {
  for (const table of ['search_mail', 'search_chat', 'search_documents', 'search_library'])
    db.prepare(`INSERT INTO ${table} (${table}) VALUES ('delete-all')`).run();
  db.exec(`DELETE FROM search_document_versions; DELETE FROM search_backfill;`);
  db.exec(`
    INSERT INTO search_backfill SELECT 'mail', '0', CAST(coalesce(max(id), 0) AS TEXT), 0, count(*) FROM messages;
    INSERT INTO search_backfill SELECT 'chat', '0', CAST(coalesce(max(id), 0) AS TEXT), 0, count(*) FROM chat_messages;
    INSERT INTO search_backfill SELECT 'library', '0', CAST(coalesce(max(entry_id), 0) AS TEXT), 0, count(*) FROM search_library_items;
    INSERT INTO search_backfill SELECT 'document', '', coalesce(max(document_id), ''), 0, count(*) FROM documents;`);
}

async function withDatabase<T>(use: (db: Database) => T): Promise<T> {
  const opened = await openNodeDatabase(dataDir);
  try {
    return use(opened.db);
  } finally {
    opened.close();
  }
}

beforeAll(async () => {
  const t = await startTestNode();
  dataDir = t.dataDir;
  await createNodeNamespace(t, 'backfill.test');
  const project = await createProject(t, 'backfill', 'backfill.test');
  const alice = await createIdentity(t, project.api_key, { alias: 'alice' });
  const bob = await createIdentity(t, project.api_key, { alias: 'bob' });
  aliceKey = alice.api_key;
  expectOk(
    await t.request('POST', '/v1/messages', { token: bob.api_key, body: { to_alias: 'alice', subject: 'needle', body: 'The haystack hides a needle.' } }),
  );
  expectOk(await t.request('POST', '/v1/chat/sessions', { token: alice.api_key, body: { to_aliases: ['bob'], message: 'a chat about walruses' } }));
  const member = await addTeamMember(t, { team: 'old', domain: 'backfill.test', alias: 'keeper', scopes: ALL_SCOPES });
  const docs = t.node.info.docs_url;
  expectOk(await member.request('POST', '/v1/documents', { aud: docs, body: { slug: 'notes', title: 'Notes', body: 'first draft mentions platypus\n' } }), 201);
  expectOk(
    await member.request('POST', '/v1/documents/notes/versions', { aud: docs, raw: 'second draft\n', contentType: 'text/markdown; charset=utf-8' }),
    201,
  );
  expectOk(await member.request('POST', '/v1/profiles', { body: { files: profileFiles({ ref: 'archivist', mission: 'Keep the ledger of narwhals.' }) } }), 201);
  await t.stop({ keepData: true });
  // Many more mails than one batch, written straight into the table as an older node would have.
  await withDatabase((db) => {
    const row = db.prepare(`SELECT * FROM messages ORDER BY id LIMIT 1`).get() as Record<string, unknown>;
    const insert = db.prepare(
      `INSERT INTO messages (message_id, from_agent_id, from_alias, from_address, from_did, to_agent_id, to_text, to_alias, to_did, subject, body, signature, signed_payload, created_at)
       VALUES (@message_id, @from_agent_id, @from_alias, @from_address, @from_did, @to_agent_id, @to_text, @to_alias, @to_did, @subject, @body, @signature, @signed_payload, @created_at)`,
    );
    db.transaction(() => {
      for (let i = 0; i < MAILS; i++) insert.run({ ...row, message_id: `filler-${i}`, subject: `filler ${i}`, body: `routine report number ${i}` });
    })();
    forgetIndex(db);
  });
}, 60_000);

describe('the search index backfill', () => {
  it('resumes where it stopped: each batch commits its rows with its cursor', async () => {
    await withDatabase((db) => {
      const search = new SearchService(db, systemClock);
      expect(search.indexState()).toMatchObject({ complete: false, indexed: 0 });
      // No documents service in this process: documents wait, the rest goes on.
      const backfill = new SearchBackfill(db, () => null);
      while (search.indexState().indexed < BACKFILL_BATCH) expect(backfill.step()).toBe(true);
      const state = search.indexState();
      expect(state.complete).toBe(false);
      expect(state.indexed).toBeLessThan(state.total);
    });
    // That "process" stopped after a batch of mail; what it committed is still there.
    const after = await withDatabase((db) => new SearchService(db, systemClock).indexState());
    expect(after.indexed).toBeGreaterThanOrEqual(BACKFILL_BATCH);
    expect(after.complete).toBe(false);
  });

  it('finishes in the background once the node runs, everything findable, progress reported in every answer', async () => {
    const t = await startTestNode({ dataDir });
    try {
      const find = async (q: string) => SearchResults.parse(expectOk(await t.request('GET', `/v1/search?q=${encodeURIComponent(q)}`, { token: aliceKey })));
      await expect.poll(async () => (await find('needle')).index.complete, { timeout: 20_000 }).toBe(true);
      const done = await find('needle');
      expect(done.index.indexed).toBe(done.index.total);
      expect(done.results.map((h) => h.title)).toEqual(['needle']);
      expect((await find('walruses')).results).toHaveLength(1);
      expect((await find('"routine report number 4499"')).results).toHaveLength(1);
      const owner = (q: string) => t.owner('GET', `/v1/node/search?q=${q}`);
      // The older document version, rebuilt from its version chain, and the shelf profile.
      expect(SearchResults.parse(expectOk(await owner('platypus'))).results).toMatchObject([{ kind: 'document', slug: 'notes', version: 1, current: false }]);
      expect(SearchResults.parse(expectOk(await owner('narwhals'))).results).toMatchObject([{ kind: 'profile', profile_ref: 'archivist' }]);
    } finally {
      await t.stop();
    }
  });
});
