/**
 * Billing on a self-custodial node (research B8, C5; DESIGN §5): `active` with no caps by default;
 * with caps configured by the owner, `free`, and a 402 with the structured detail on the create or
 * append over a cap. Reads are never blocked and nothing is deleted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDocsMember, setDocCaps, type DocsClient } from '../support/docs.ts';
import { expectOk, expectRefusal, expectValidation } from '../support/expect.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import type { ApiResponse } from '../support/node.ts';

let t: TestNode;
let team: DocsClient;
let other: DocsClient;

beforeAll(async () => {
  t = await startTestNode();
  team = await addDocsMember(t, { team: 'billing', domain: 'billing.test' });
  other = await addDocsMember(t, { team: 'billing2', domain: 'billing.test' });
});
afterAll(async () => {
  await t.stop();
});

const cover = { title: 'T' };

function expectCapRefusal(res: ApiResponse, limit: 'documents' | 'versions_per_doc', current: number, max: number): void {
  expect(res.status, JSON.stringify(res.body)).toBe(402);
  expect(res.headers.get('content-type') ?? '').toMatch(/^application\/json/);
  expect(res.body).toEqual({
    detail: { code: 'free_tier_limit_exceeded', limit, current, max, subscriptions_available: false, message: expect.any(String) },
  });
}

describe('billing', () => {
  it('reports tier active with null caps and the usage by default', async () => {
    expect(expectOk(await team.request('GET', '/v1/billing'))).toEqual({
      team_id: team.teamId,
      tier: 'active',
      caps: { max_documents: null, max_versions_per_doc: null },
      usage: { documents: 0, max_versions_per_doc: 0 },
    });
    expect(expectOk(await t.owner('GET', '/v1/node/docs/billing'))).toEqual({ tier: 'active', caps: { max_documents: null, max_versions_per_doc: null } });
    // Uncapped: many documents and versions are fine.
    for (let i = 0; i < 4; i++) expectOk(await team.create(`doc${i}`, `d${i}`), 201);
    for (let v = 2; v <= 5; v++) expectOk(await team.append('doc0', `v${v}`), 201);
    expect(expectOk(await team.request('GET', '/v1/billing')).usage).toEqual({ documents: 4, max_versions_per_doc: 5 });
  });

  it('lets only the owner set caps, validated', async () => {
    expectRefusal(await t.request('PUT', '/v1/node/docs/billing', { body: { caps: { max_documents: 1, max_versions_per_doc: 1 } } }), 401);
    expectValidation(await setDocCaps(t, { max_documents: -1, max_versions_per_doc: null }), 'max_documents');
    expectValidation(await setDocCaps(t, { max_documents: 1.5, max_versions_per_doc: null }), 'max_documents');
    expectValidation(await t.owner('PUT', '/v1/node/docs/billing', { caps: { max_documents: 1 } }), 'max_versions_per_doc');
    expect(expectOk(await t.owner('GET', '/v1/node/docs/billing')).tier).toBe('active');
  });

  it('switches to free with caps and refuses creates over the document cap with a 402', async () => {
    expect(expectOk(await setDocCaps(t, { max_documents: 5, max_versions_per_doc: 6 }))).toEqual({
      tier: 'free',
      caps: { max_documents: 5, max_versions_per_doc: 6 },
    });
    expect(expectOk(await team.request('GET', '/v1/billing'))).toMatchObject({ tier: 'free', caps: { max_documents: 5, max_versions_per_doc: 6 } });
    expectOk(await team.create('doc4', 'fifth'), 201);
    expectCapRefusal(await team.create('doc5', 'sixth'), 'documents', 5, 5);
    expectCapRefusal(await team.createFromTemplate('doc5', { name: 'memo', slots: { cover } }), 'documents', 5, 5);
    expectRefusal(await team.get('doc5'), 404);
    // Caps are per team: another team still has room.
    expectOk(await other.create('theirs', 'x'), 201);
  });

  it('refuses appends over the version cap (raw and template), keeping the history', async () => {
    expectOk(await team.append('doc0', 'v6'), 201);
    expectCapRefusal(await team.append('doc0', 'v7'), 'versions_per_doc', 6, 6);
    expectCapRefusal(await team.appendTemplate('doc0', { name: 'memo', slots: { cover } }), 'versions_per_doc', 6, 6);
    // Reads are never blocked, and the data is intact.
    const doc = expectOk(await team.get('doc0'));
    expect(doc).toMatchObject({ current_version: 6, body: 'v6' });
    expect(expectOk(await team.request('GET', '/v1/documents/doc0/versions'))).toHaveLength(6);
    expect(expectOk(await team.request('GET', '/v1/documents/doc0/versions/1')).body).toBe('d0');
    expect(expectOk(await team.request('GET', '/v1/documents'))).toHaveLength(5);
    expect(expectOk(await team.request('GET', '/v1/billing')).usage).toEqual({ documents: 5, max_versions_per_doc: 6 });
  });

  it('is a 404, not a 402, for a document that is not the team\'s', async () => {
    expectRefusal(await other.append('doc0', 'x'), 404);
  });

  it('lifts the caps again without losing anything', async () => {
    expect(expectOk(await setDocCaps(t, { max_documents: null, max_versions_per_doc: null })).tier).toBe('active');
    expect(expectOk(await team.append('doc0', 'v7'), 201).current_version).toBe(7);
    expectOk(await team.create('doc5', 'sixth'), 201);
    expect(expectOk(await team.request('GET', '/v1/billing'))).toMatchObject({ tier: 'active', usage: { documents: 6, max_versions_per_doc: 7 } });
  });

  it('applies a document-only cap without a version cap', async () => {
    expectOk(await setDocCaps(t, { max_documents: 6, max_versions_per_doc: null }));
    expectCapRefusal(await team.create('doc6', 'x'), 'documents', 6, 6);
    expectOk(await team.append('doc0', 'v8'), 201);
    expectOk(await setDocCaps(t, { max_documents: null, max_versions_per_doc: null }));
  });
});
