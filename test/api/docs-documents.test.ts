/**
 * The document surface over real HTTP (spec §4.7; docs/adr/0006-library-and-document-surfaces.md):
 * documents, versions with raw Markdown or templates, history and older bodies, team isolation, and
 * that a refused request leaves the data as it was.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../server/crypto/encoding.ts';
import { addDocsMember, MARKDOWN, type DocsClient } from '../support/docs.ts';
import { expectOk, expectRefusal, expectValidation } from '../support/expect.ts';
import { startTestNode, type TestNode } from '../support/node.ts';

let t: TestNode;
let alice: DocsClient;
let bob: DocsClient;
let outsider: DocsClient;

beforeAll(async () => {
  t = await startTestNode();
  alice = await addDocsMember(t, { team: 'docs', domain: 'docs.test', alias: 'alice', address: 'docs.test/alice' });
  bob = await addDocsMember(t, { teamId: alice.teamId, alias: 'bob' });
  outsider = await addDocsMember(t, { team: 'other', domain: 'other.test', alias: 'eve' });
});
afterAll(async () => {
  await t.stop();
});

const cover = { title: 'Lighthouse', eyebrow: 'Q3' };

/** The document as it stands, for "nothing changed" checks. */
async function snapshot(client: DocsClient, slug: string): Promise<{ body: string; current_version: number; versions: number }> {
  const doc = expectOk(await client.get(slug));
  const versions = expectOk(await client.request('GET', `/v1/documents/${slug}/versions`));
  return { body: doc.body, current_version: doc.current_version, versions: versions.length };
}

describe('create', () => {
  it('creates a document from Markdown as version 1 with the creator recorded', async () => {
    const doc = expectOk(await alice.create('plan', '# Plan\n\nFirst draft.\n', 'The plan'), 201);
    expect(doc).toEqual({
      document_id: expect.any(String),
      slug: 'plan',
      title: 'The plan',
      body: '# Plan\n\nFirst draft.\n',
      current_version: 1,
      created_at: expect.any(String),
      updated_at: doc.created_at,
      latest: {
        version_id: expect.any(String),
        version_number: 1,
        body: null,
        source: 'api',
        body_sha256: sha256Hex('# Plan\n\nFirst draft.\n'),
        created_by_did_key: alice.member.key.didKey,
        created_by_did_aw: null,
        created_by_address: 'docs.test/alice',
        created_by_alias: 'alice',
        certificate_id: alice.member.certificateId,
        created_by_editor_name: null,
        created_at: doc.created_at,
        acting_as: null,
        author: { kind: 'member', name: 'alice', address: 'docs.test/alice' },
      },
    });
  });

  it('accepts an empty body and slugs with dots, dashes and underscores', async () => {
    expect(expectOk(await alice.create('Notes_2026.v-1', ''), 201).body).toBe('');
  });

  it('refuses a duplicate slug with a 409, leaving the first document alone', async () => {
    expectOk(await alice.create('dup', 'original'), 201);
    expectRefusal(await bob.create('dup', 'impostor'), 409, /dup/, 'SVC_ERR_DOCUMENT_SLUG_TAKEN');
    expect(await snapshot(alice, 'dup')).toEqual({ body: 'original', current_version: 1, versions: 1 });
  });

  it('lets another team use the same slug', async () => {
    expectOk(await outsider.create('dup', 'theirs'), 201);
    expect(expectOk(await alice.get('dup')).body).toBe('original');
  });

  it('needs exactly one of body or template, by key presence', async () => {
    const both = await alice.request('POST', '/v1/documents', { body: { slug: 'x1', title: 'x', body: '', template: { name: 'memo', slots: { cover } } } });
    expectRefusal(both, 422, /Provide exactly one of body or template/, 'SVC_ERR_VALIDATION');
    const neither = await alice.request('POST', '/v1/documents', { body: { slug: 'x2', title: 'x' } });
    expectRefusal(neither, 422, /Provide exactly one of body or template/, 'SVC_ERR_VALIDATION');
    for (const slug of ['x1', 'x2']) expectRefusal(await alice.get(slug), 404, undefined, 'SVC_ERR_DOCUMENT_NOT_FOUND');
  });

  it('validates slug, title and unknown keys', async () => {
    expectValidation(await alice.create('-leading', 'x'), 'slug');
    expectValidation(await alice.create('has space', 'x'), 'slug');
    expectValidation(await alice.create('s'.repeat(161), 'x'), 'slug');
    expect((await alice.create('s'.repeat(160), 'x')).status).toBe(201);
    expectValidation(await alice.create('long-title', 'x', 't'.repeat(241)), 'title');
    expectValidation(await alice.request('POST', '/v1/documents', { body: { slug: 'k', title: 'k', body: 'x', team_id: 'other' } }), 'team_id');
    expectValidation(await alice.request('POST', '/v1/documents', { body: { slug: 'k', title: 'k', body: 42 } }), 'body');
    expectRefusal(await alice.get('long-title'), 404);
  });
});

describe('raw Markdown versions', () => {
  it('appends integer versions 1, 2, 3 and keeps every older body readable', async () => {
    expectOk(await alice.create('notes', 'one\n'), 201);
    const two = expectOk(await alice.append('notes', 'one\ntwo\n'), 201);
    expect(two).toMatchObject({ slug: 'notes', body: 'one\ntwo\n', current_version: 2, latest: { version_number: 2, source: 'api', body: null } });
    const three = expectOk(await bob.append('notes', 'one\ntwo\nthree 🙂\n', 'text/markdown'), 201);
    expect(three).toMatchObject({ current_version: 3, latest: { version_number: 3, created_by_alias: 'bob' } });

    expect(expectOk(await alice.get('notes'))).toMatchObject({ body: 'one\ntwo\nthree 🙂\n', current_version: 3 });
    const history = expectOk(await alice.request('GET', '/v1/documents/notes/versions'));
    expect(history.map((v: any) => [v.version_number, v.body, v.created_by_alias])).toEqual([
      [3, null, 'bob'],
      [2, null, 'alice'],
      [1, null, 'alice'],
    ]);
    const bodies = [];
    for (const n of [1, 2, 3]) bodies.push(expectOk(await alice.request('GET', `/v1/documents/notes/versions/${n}`)).body);
    expect(bodies).toEqual(['one\n', 'one\ntwo\n', 'one\ntwo\nthree 🙂\n']);
    const one = expectOk(await alice.request('GET', '/v1/documents/notes/versions/1'));
    expect(one).toMatchObject({ version_number: 1, version_id: history[2].version_id, body_sha256: sha256Hex('one\n') });
  });

  it('refuses missing or malformed version numbers', async () => {
    expectRefusal(await alice.request('GET', '/v1/documents/notes/versions/4'), 404, undefined, 'SVC_ERR_DOCUMENT_VERSION_NOT_FOUND');
    expectRefusal(await alice.request('GET', '/v1/documents/notes/versions/0'), 422, undefined, 'SVC_ERR_VALIDATION');
    expectRefusal(await alice.request('GET', '/v1/documents/notes/versions/two'), 422);
  });

  it('rebuilds every version across snapshot boundaries (70 versions)', async () => {
    const body = (n: number) => `# Long\n\n${'A paragraph that stays. '.repeat(50)}\n\nedit ${n}\n${'Tail text. '.repeat(30)}`;
    expectOk(await alice.create('long', body(1)), 201);
    for (let n = 2; n <= 70; n++) expectOk(await alice.append('long', body(n)), 201);
    for (const n of [1, 2, 63, 64, 65, 66, 69, 70]) {
      expect(expectOk(await alice.request('GET', `/v1/documents/long/versions/${n}`)).body, `version ${n}`).toBe(body(n));
    }
  });

  it('refuses any content type but text/markdown (UTF-8), changing nothing', async () => {
    const before = await snapshot(alice, 'notes');
    const json = await alice.request('POST', '/v1/documents/notes/versions', { body: { body: 'json' } });
    expectRefusal(json, 415, /text\/markdown/, 'SVC_ERR_UNSUPPORTED_MEDIA_TYPE');
    expectRefusal(await alice.append('notes', 'plain', 'text/plain'), 415);
    expectRefusal(await alice.append('notes', 'plain', 'text/plain; charset=utf-8'), 415);
    expectRefusal(await alice.append('notes', 'latin', 'text/markdown; charset=iso-8859-1'), 415);
    expectRefusal(await alice.append('notes', 'bin', 'application/octet-stream'), 415);
    expect(await snapshot(alice, 'notes')).toEqual(before);
  });

  it('accepts the charset spelled in any case', async () => {
    const before = await snapshot(alice, 'notes');
    expectOk(await alice.append('notes', `${before.body}four\n`, 'text/markdown; charset=UTF-8'), 201);
  });

  it('refuses invalid UTF-8 with a 400, changing nothing', async () => {
    const before = await snapshot(alice, 'notes');
    expectRefusal(await alice.append('notes', Buffer.from([0x23, 0x20, 0xc3, 0x28]), MARKDOWN), 400, /UTF-8/, 'SVC_ERR_MALFORMED_REQUEST');
    expectRefusal(await alice.append('notes', Buffer.from([0xff, 0xfe]), MARKDOWN), 400);
    expect(await snapshot(alice, 'notes')).toEqual(before);
  });

  it('stores the exact bytes, a byte-order mark included', async () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('# BOM\r\n')]);
    const doc = expectOk(await alice.append('notes', bytes), 201);
    expect(doc.body).toBe('\ufeff# BOM\r\n');
    expect(doc.latest.body_sha256).toBe(sha256Hex(bytes));
  });

  it('checks the envelope against the raw Markdown bytes', async () => {
    const before = await snapshot(alice, 'notes');
    const path = '/v1/documents/notes/versions';
    const headers = alice.member.sign('POST', path, 'signed text', { aud: t.node.info.docs_url });
    const res = await fetch(`${t.url}${path}`, { method: 'POST', headers: { ...headers, 'content-type': MARKDOWN }, body: 'other text' });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/body_sha256/);
    expect(await snapshot(alice, 'notes')).toEqual(before);
  });

  it('is a 404 for a document that does not exist', async () => {
    expectRefusal(await alice.append('nope', 'x'), 404, undefined, 'SVC_ERR_DOCUMENT_NOT_FOUND');
  });
});

describe('saving nothing new, and saving over a stale base', () => {
  const over = (base: number) => `/v1/documents/merge-me/versions?base_version=${base}`;

  it('answers the latest text again with 200 and unchanged, making no version and announcing nothing', async () => {
    expectOk(await alice.create('same', '# Same\n'), 201);
    expect(expectOk(await alice.append('same', '# Same\nmore\n'), 201)).toMatchObject({ current_version: 2, unchanged: false });
    const again = expectOk(await bob.append('same', '# Same\nmore\n'), 200);
    expect(again).toMatchObject({ current_version: 2, body: '# Same\nmore\n', unchanged: true, latest: { version_number: 2, created_by_alias: 'alice' } });
    // A template rendering to the latest text is no change either.
    const memo = { name: 'memo', slots: { cover } };
    const rendered = expectOk(await alice.appendTemplate('same', memo), 201);
    expect(expectOk(await alice.appendTemplate('same', memo), 200)).toMatchObject({ current_version: rendered.current_version, unchanged: true });
    expect(await snapshot(alice, 'same')).toEqual({ body: rendered.body, current_version: 3, versions: 3 });
  });

  it('appends over the latest version named as base_version, and refuses an older one with a 409 carrying the latest', async () => {
    expectOk(await alice.create('merge-me', 'a\nb\nc\n'), 201);
    const mine = expectOk(await alice.request('POST', over(1), { raw: 'A\nb\nc\n', contentType: MARKDOWN }), 201);
    expect(mine).toMatchObject({ current_version: 2, unchanged: false });
    // Bob wrote over version 1 too: his save would replace alice's change, so nothing is saved.
    const stale = await bob.request('POST', over(1), { raw: 'a\nb\nC\n', contentType: MARKDOWN });
    expect(stale.status).toBe(409);
    expect(stale.body).toEqual({
      detail: { message: expect.stringContaining('changed since version 1'), version_number: 2, body: 'A\nb\nc\n' },
      code: 'SVC_ERR_DOCUMENT_VERSION_STALE',
    });
    expect(await snapshot(alice, 'merge-me')).toEqual({ body: 'A\nb\nc\n', current_version: 2, versions: 2 });
    // Merged over the latest, it goes through; the latest text over a stale base is no change, not a conflict.
    expect(expectOk(await bob.request('POST', over(2), { raw: 'A\nb\nC\n', contentType: MARKDOWN }), 201)).toMatchObject({ current_version: 3 });
    expect(expectOk(await bob.request('POST', over(1), { raw: 'A\nb\nC\n', contentType: MARKDOWN }), 200)).toMatchObject({
      current_version: 3,
      unchanged: true,
    });
  });

  it('refuses a base_version that is not a version number', async () => {
    for (const bad of ['0', 'two', '-1', '1.5']) {
      expectRefusal(
        await alice.request('POST', `/v1/documents/merge-me/versions?base_version=${bad}`, { raw: 'x\n', contentType: MARKDOWN }),
        422,
        undefined,
        'SVC_ERR_VALIDATION',
      );
    }
    expect((await snapshot(alice, 'merge-me')).current_version).toBe(3);
  });
});

describe('templates', () => {
  it('creates a document from a template', async () => {
    const doc = expectOk(
      await alice.createFromTemplate('pitch', {
        name: ' Pitch ',
        slots: { cover, metrics: [{ label: 'Teams', value: '42' }], ask: { items: ['Review'] } },
      }),
      201,
    );
    expect(doc.body).toBe('_Q3_\n\n# Lighthouse\n\n## Metrics\n\n| Metric | Value | Notes |\n| --- | --- | --- |\n| Teams | 42 |  |\n\n## Ask\n\n- Review\n');
    expect(doc.latest).toMatchObject({ version_number: 1, source: 'template' });
  });

  it('appends a template version', async () => {
    const doc = expectOk(await alice.appendTemplate('pitch', { name: 'memo', slots: { cover: { title: 'Now a memo' }, sections: [{ heading: 'Why' }] } }), 201);
    expect(doc).toMatchObject({ current_version: 2, body: '# Now a memo\n\n## Why\n', latest: { source: 'template', version_number: 2 } });
  });

  it('refuses template errors with a 422 that names the location, changing nothing', async () => {
    const before = await snapshot(alice, 'pitch');
    const unknown = await alice.appendTemplate('pitch', { name: 'deck', slots: { cover } });
    expectRefusal(unknown, 422, /Unknown template: deck/, 'SVC_ERR_VALIDATION');
    expect(unknown.body.detail[0].loc).toEqual(['body', 'name']);
    const badSlot = await alice.appendTemplate('pitch', { name: 'memo', slots: { cover, metrics: [] } });
    expect(badSlot.body.detail.map((i: any) => i.loc.join('.'))).toEqual(['body.slots.metrics']);
    const long = await alice.appendTemplate('pitch', { name: 'memo', slots: { cover: { title: 't'.repeat(241) } } });
    expect(long.body.detail.map((i: any) => i.loc.join('.'))).toEqual(['body.slots.cover.title']);
    expectValidation(await alice.appendTemplate('pitch', { name: 'memo', slots: {} }), 'cover');
    expectValidation(await alice.request('POST', '/v1/documents/pitch/versions/template', { body: { name: 'memo', slots: { cover }, extra: 1 } }), 'extra');
    expect(await snapshot(alice, 'pitch')).toEqual(before);

    const onCreate = await alice.createFromTemplate('bad-template', { name: 'memo', slots: { cover: {} } });
    expect(onCreate.body.detail.map((i: any) => i.loc.join('.'))).toEqual(['body.template.slots.cover.title']);
    expectRefusal(await alice.get('bad-template'), 404);
  });

  it('lists and describes the built-in templates', async () => {
    const list = expectOk(await alice.request('GET', '/v1/templates'));
    expect(list.templates.map((tpl: any) => tpl.name)).toEqual(['pitch', 'memo', 'metrics']);
    expect(list.limits).toMatchObject({ title: 240, sections: 40, sectionBody: 16000, item: 240 });
    const memo = expectOk(await alice.request('GET', '/v1/templates/memo'));
    expect(memo).toMatchObject({ name: 'memo', slots: ['cover', 'sections'], required_slots: ['cover'] });
    expect(memo.schema.properties.slots.properties.cover.required).toEqual(['title']);
    // The example is a working request body.
    const created = expectOk(await alice.createFromTemplate('from-example', memo.example), 201);
    expect(created.body).toBe(memo.example_markdown);
    expectRefusal(await alice.request('GET', '/v1/templates/deck'), 404, undefined, 'SVC_ERR_TEMPLATE_NOT_FOUND');
  });
});

describe('listing and isolation', () => {
  it("lists the team's documents, most recently updated first, then by slug", async () => {
    const docs = expectOk(await alice.request('GET', '/v1/documents'));
    expect(Object.keys(docs[0]).sort()).toEqual(['created_at', 'current_version', 'document_id', 'slug', 'title', 'updated_at']);
    const sorted = [...docs].sort((a: any, b: any) => (a.updated_at === b.updated_at ? (a.slug < b.slug ? -1 : 1) : a.updated_at < b.updated_at ? 1 : -1));
    expect(docs.map((d: any) => d.slug)).toEqual(sorted.map((d: any) => d.slug));
    expectOk(await alice.append('plan', '# Plan\n\nSecond draft.\n'), 201);
    expect(expectOk(await bob.request('GET', '/v1/documents'))[0].slug).toBe('plan');
    expect(expectOk(await outsider.request('GET', '/v1/documents')).map((d: any) => d.slug)).toEqual(['dup']);
  });

  it("answers another team's document with a 404 everywhere, changing nothing", async () => {
    const before = await snapshot(alice, 'plan');
    expectRefusal(await outsider.get('plan'), 404, undefined, 'SVC_ERR_DOCUMENT_NOT_FOUND');
    expectRefusal(await outsider.request('GET', '/v1/documents/plan/versions'), 404, undefined, 'SVC_ERR_DOCUMENT_NOT_FOUND');
    expectRefusal(await outsider.request('GET', '/v1/documents/plan/versions/1'), 404, undefined, 'SVC_ERR_DOCUMENT_NOT_FOUND');
    expectRefusal(await outsider.append('plan', 'hijack'), 404, undefined, 'SVC_ERR_DOCUMENT_NOT_FOUND');
    expectRefusal(await outsider.appendTemplate('plan', { name: 'memo', slots: { cover } }), 404, undefined, 'SVC_ERR_DOCUMENT_NOT_FOUND');
    expect(await snapshot(alice, 'plan')).toEqual(before);
  });

  it('pages the list by key, newest first, with a total, and filters by title or slug', async () => {
    const pam = await addDocsMember(t, { team: 'pages', domain: 'pages.test', alias: 'pam' });
    for (let i = 0; i < 12; i++) expectOk(await pam.create(`p-${i}`, `body ${i}`, i === 7 ? 'Quarterly 100% plan' : `Page ${i}`), 201);
    const all: string[] = expectOk(await pam.request('GET', '/v1/documents')).map((d: any) => d.slug);
    const seen: string[] = [];
    let after: string | null = null;
    for (let round = 0; round < 3; round++) {
      const query: string = `?limit=5${after === null ? '' : `&after=${encodeURIComponent(after)}`}`;
      const page = expectOk(await pam.request('GET', `/v1/documents${query}`));
      expect(page.total).toBe(12);
      expect(page.has_more).toBe(round < 2);
      expect(Object.keys(page.documents[0]).sort()).toEqual(['created_at', 'current_version', 'document_id', 'slug', 'title', 'updated_at']);
      seen.push(...page.documents.map((d: any) => d.slug));
      after = page.next_after;
    }
    expect(after).toBeNull();
    expect(seen).toEqual(all);
    // A document saved between pages moves to the top; the cursor is a bound, so the rest follows on.
    const first = expectOk(await pam.request('GET', '/v1/documents?limit=4'));
    expectOk(await pam.append(first.documents[3].slug, 'moved'), 201);
    const next = expectOk(await pam.request('GET', `/v1/documents?limit=4&after=${encodeURIComponent(first.next_after)}`));
    expect(next.documents.map((d: any) => d.slug)).toEqual(all.slice(4, 8));

    const matching = expectOk(await pam.request('GET', '/v1/documents?limit=50&q=P-1'));
    expect(matching.documents.map((d: any) => d.slug).sort()).toEqual(['p-1', 'p-10', 'p-11']);
    expect(matching.total).toBe(3);
    // LIKE's wildcards are plain characters in q.
    expect(expectOk(await pam.request('GET', '/v1/documents?limit=50&q=100%25')).documents.map((d: any) => d.slug)).toEqual(['p-7']);
    expect(expectOk(await pam.request('GET', '/v1/documents?limit=50&q=_')).total).toBe(0);
    expect(expectOk(await pam.request('GET', '/v1/documents?q=quarterly')).map((d: any) => d.slug)).toEqual(['p-7']);

    expectValidation(await pam.request('GET', '/v1/documents?limit=0'), 'limit');
    expectValidation(await pam.request('GET', '/v1/documents?limit=501'), 'limit');
    expectValidation(await pam.request('GET', '/v1/documents?limit=5&after=p-3'), 'after');
    expectValidation(await pam.request('GET', `/v1/documents?after=${encodeURIComponent(first.next_after)}`), 'after');
    expectValidation(await pam.request('GET', `/v1/documents?limit=5&q=${'x'.repeat(201)}`), 'q');
  });

  it('refuses unsigned requests', async () => {
    expectRefusal(await t.request('GET', '/v1/documents'), 401);
    expectRefusal(await t.request('POST', '/v1/documents/plan/versions', { raw: 'x', headers: { 'content-type': MARKDOWN } }), 401);
  });
});
