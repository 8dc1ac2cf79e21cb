/**
 * Revoking a member closes its editable present links at once (a revoked certificate must stop
 * writing, whatever it minted), attacked over real HTTP: before this change a revoked member's
 * seven-day editable link kept appending versions credited to the revoked certificate.
 *
 * An editor page opened before the revocation gets a clear refusal on its next save, and the
 * document does not change. Read links stay open (a pinned snapshot the team already shared; see
 * server/teams/revocation.ts), and other members' links are untouched.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { addDocsMember, type DocsClient } from '../support/docs.ts';
import { expectOk, expectRefusal } from '../support/expect.ts';
import { startTestNode, type TestNode } from '../support/node.ts';

let t: TestNode;
let author: DocsClient;
let colleague: DocsClient;

interface Link {
  url: string;
  link_id: string;
}

async function publicPost(url: string, body: unknown): Promise<{ status: number; body: any; type: string }> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, body: await response.json(), type: response.headers.get('content-type') ?? '' };
}

const mint = async (client: DocsClient, body: Record<string, unknown>): Promise<Link> => expectOk(await client.request('POST', '/v1/present', { body }), 201);
const revoke = (client: DocsClient) => t.owner('POST', `/v1/node/teams/${encodeURIComponent(client.teamId)}/members/${client.member.certificateId}/revoke`);

beforeAll(async () => {
  t = await startTestNode();
  return () => t.stop();
});
beforeAll(async () => {
  author = await addDocsMember(t, { team: 'revoking', domain: 'revoke.test', alias: 'author' });
  colleague = await addDocsMember(t, { teamId: author.teamId, alias: 'colleague' });
});

describe('revoking a member certificate', () => {
  it('closes its editable links at once: an editor already open is refused on save, and nothing is appended', async () => {
    expectOk(await author.create('pitch', '# Pitch v1\n'), 201);
    const editable = await mint(author, { slug: 'pitch', editable: true, ttl_seconds: 604_800 });
    const readOnly = await mint(author, { slug: 'pitch', version: 1 });
    const theirs = await mint(colleague, { slug: 'pitch', editable: true });

    // The editor page is open and saving works, credited to the author's certificate.
    const opened = await fetch(editable.url);
    expect(opened.status).toBe(200);
    expect(await opened.text()).toContain('data-version="1"');
    expect(await publicPost(`${editable.url}/edit`, { body: '# Pitch v2\n', base_version: 1 })).toMatchObject({ status: 200, body: { version_number: 2 } });
    expect(expectOk(await colleague.get('pitch')).latest.certificate_id).toBe(author.member.certificateId);

    const revoked = expectOk(await revoke(author));

    // No wait: the very next save from the open page is refused, clearly, as JSON.
    const save = await publicPost(`${editable.url}/edit`, { body: '# Pitch v3 by a revoked member\n', base_version: 2, editor_name: 'Mallory' });
    expect(save.status).toBe(404);
    expect(save.type).toMatch(/^application\/json/);
    expect(save.body).toEqual({ detail: expect.stringMatching(/no longer accepts edits.*nothing was saved/), code: 'SVC_ERR_PRESENT_LINK_NOT_FOUND' });
    const doc = expectOk(await colleague.get('pitch'));
    expect(doc).toMatchObject({ current_version: 2, body: '# Pitch v2\n' });
    expect(revoked).toMatchObject({ revoked: true, certificate_id: author.member.certificateId, closed_present_links: 1 });

    // The link is gone everywhere: page, state, preview.
    expect((await fetch(editable.url)).status).toBe(404);
    expect((await fetch(`${editable.url}/state`)).status).toBe(404);
    expect((await publicPost(`${editable.url}/preview`, { body: 'x' })).status).toBe(404);

    // The listing shows it revoked with the certificate; the read link and a colleague's link stay.
    const links = expectOk(await colleague.request('GET', '/v1/present')) as { link_id: string; revoked_at: string | null }[];
    const byId = new Map(links.map((l) => [l.link_id, l.revoked_at]));
    expect(byId.get(editable.link_id)).toBe(revoked.revoked_at);
    expect(byId.get(readOnly.link_id)).toBeNull();
    expect(byId.get(theirs.link_id)).toBeNull();

    const pinned = await fetch(readOnly.url);
    expect(pinned.status).toBe(200);
    expect(await pinned.text()).toContain('Pitch v1');
    expect(await publicPost(`${theirs.url}/edit`, { body: '# Pitch v3\n', base_version: 2 })).toMatchObject({ status: 200, body: { version_number: 3 } });
    expect(expectOk(await colleague.get('pitch')).latest.certificate_id).toBe(colleague.member.certificateId);

    // And the revoked certificate mints nothing new.
    expectRefusal(await author.request('POST', '/v1/present', { body: { slug: 'pitch', editable: true } }), 401, /revoked/, 'SVC_ERR_TEAM_CERTIFICATE_REVOKED');
  });

  it('closes every editable link the member minted, on every document, and no one else’s', async () => {
    const leaving = await addDocsMember(t, { teamId: author.teamId, alias: 'leaving' });
    expectOk(await leaving.create('memo-a', 'a\n'), 201);
    expectOk(await leaving.create('memo-b', 'b\n'), 201);
    const links = [
      await mint(leaving, { slug: 'memo-a', editable: true }),
      await mint(leaving, { slug: 'memo-b', editable: true }),
      await mint(leaving, { slug: 'memo-b', editable: true }),
    ];
    const staying = await mint(colleague, { slug: 'memo-a', editable: true });

    const revoked = expectOk(await revoke(leaving));
    for (const link of links) expect((await publicPost(`${link.url}/edit`, { body: 'late\n', base_version: 1 })).status).toBe(404);
    expect(revoked.closed_present_links).toBe(3);
    expect(expectOk(await colleague.get('memo-a')).current_version).toBe(1);
    expect(expectOk(await colleague.get('memo-b')).current_version).toBe(1);
    expect((await publicPost(`${staying.url}/edit`, { body: 'a2\n', base_version: 1 })).status).toBe(200);
  });
});
