/**
 * Billing on a self-custodial node (DESIGN §5; docs/adr/0006-library-and-document-surfaces.md):
 * `active` with no caps by default; with caps configured by the owner, `free`, and a 402 with the
 * structured detail on the create or append over a cap. Reads are never blocked and nothing is
 * deleted. Asset storage has a per-team quota whatever the tier (2 GiB unless the owner sets
 * another), with its usage in the report and a 402 in the same shape past it (uploads:
 * test/security/docs-bounded-uploads.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDocsMember, setDocCaps, type DocsClient } from '../support/docs.ts';
import { expectOk, expectRefusal, expectValidation } from '../support/expect.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import type { ApiResponse } from '../support/node.ts';

/** The default per-team asset storage quota: 2 GiB. */
const QUOTA = 2 * 1024 ** 3;

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
    code: 'SVC_ERR_FREE_TIER_LIMIT',
  });
}

describe('billing', () => {
  it('reports tier active with null caps and the usage by default', async () => {
    expect(expectOk(await team.request('GET', '/v1/billing'))).toEqual({
      team_id: team.teamId,
      tier: 'active',
      caps: { max_documents: null, max_versions_per_doc: null, max_asset_bytes: QUOTA },
      usage: { documents: 0, max_versions_per_doc: 0, asset_bytes: 0 },
    });
    expect(expectOk(await t.owner('GET', '/v1/node/docs/billing'))).toEqual({
      tier: 'active',
      caps: { max_documents: null, max_versions_per_doc: null, max_asset_bytes: QUOTA },
    });
    // Uncapped: many documents and versions are fine.
    for (let i = 0; i < 4; i++) expectOk(await team.create(`doc${i}`, `d${i}`), 201);
    for (let v = 2; v <= 5; v++) expectOk(await team.append('doc0', `v${v}`), 201);
    expect(expectOk(await team.request('GET', '/v1/billing')).usage).toEqual({ documents: 4, max_versions_per_doc: 5, asset_bytes: 0 });
  });

  it('lets only the owner set caps, validated', async () => {
    expectRefusal(await t.request('PUT', '/v1/node/docs/billing', { body: { caps: { max_documents: 1, max_versions_per_doc: 1 } } }), 401);
    expectValidation(await setDocCaps(t, { max_documents: -1, max_versions_per_doc: null }), 'max_documents');
    expectValidation(await setDocCaps(t, { max_documents: 1.5, max_versions_per_doc: null }), 'max_documents');
    expectValidation(await t.owner('PUT', '/v1/node/docs/billing', { caps: { max_documents: 1 } }), 'max_versions_per_doc');
    const caps = { max_documents: null, max_versions_per_doc: null };
    expectValidation(await t.owner('PUT', '/v1/node/docs/billing', { caps: { ...caps, max_asset_bytes: -1 } }), 'max_asset_bytes');
    expectValidation(await t.owner('PUT', '/v1/node/docs/billing', { caps: { ...caps, max_asset_bytes: null } }), 'max_asset_bytes');
    expectValidation(await t.owner('PUT', '/v1/node/docs/billing', { caps: { ...caps, max_asset_bytes: 2 ** 41 } }), 'max_asset_bytes');
    expect(expectOk(await t.owner('GET', '/v1/node/docs/billing')).tier).toBe('active');
  });

  it('switches to free with caps and refuses creates over the document cap with a 402', async () => {
    expect(expectOk(await setDocCaps(t, { max_documents: 5, max_versions_per_doc: 6 }))).toEqual({
      tier: 'free',
      caps: { max_documents: 5, max_versions_per_doc: 6, max_asset_bytes: QUOTA },
    });
    expect(expectOk(await team.request('GET', '/v1/billing'))).toMatchObject({ tier: 'free', caps: { max_documents: 5, max_versions_per_doc: 6 } });
    expectOk(await team.create('doc4', 'fifth'), 201);
    expectCapRefusal(await team.create('doc5', 'sixth'), 'documents', 5, 5);
    expectCapRefusal(await team.createFromTemplate('doc5', { name: 'memo', slots: { cover } }), 'documents', 5, 5);
    expectRefusal(await team.get('doc5'), 404, undefined, 'SVC_ERR_DOCUMENT_NOT_FOUND');
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
    expect(expectOk(await team.request('GET', '/v1/billing')).usage).toEqual({ documents: 5, max_versions_per_doc: 6, asset_bytes: 0 });
  });

  it("is a 404, not a 402, for a document that is not the team's", async () => {
    expectRefusal(await other.append('doc0', 'x'), 404, undefined, 'SVC_ERR_DOCUMENT_NOT_FOUND');
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

describe('asset storage quota', () => {
  const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(1000, 1)]);
  const image = (client: DocsClient) => client.request('POST', '/v1/assets', { body: { content_type: 'image/png', data_base64: PNG.toString('base64') } });
  const caps = { max_documents: null, max_versions_per_doc: null };

  it("counts the team's stored images in its usage, and is the owner's to set without changing the tier", async () => {
    expectOk(await image(team), 201);
    expectOk(await image(team), 201);
    expect(expectOk(await team.request('GET', '/v1/billing')).usage.asset_bytes).toBe(2 * PNG.length);
    expect(expectOk(await other.request('GET', '/v1/billing')).usage.asset_bytes).toBe(0);
    expect(expectOk(await t.owner('PUT', '/v1/node/docs/billing', { caps: { ...caps, max_asset_bytes: 3 * PNG.length } }))).toEqual({
      tier: 'active',
      caps: { ...caps, max_asset_bytes: 3 * PNG.length },
    });
    expect(expectOk(await team.request('GET', '/v1/billing'))).toMatchObject({ tier: 'active', caps: { max_asset_bytes: 3 * PNG.length } });
  });

  it('refuses an image past the quota with a 402 in the cap shape, storing nothing', async () => {
    expectOk(await image(team), 201);
    const refused = await image(team);
    expect(refused.status, JSON.stringify(refused.body)).toBe(402);
    expect(refused.body).toEqual({
      detail: {
        code: 'storage_quota_exceeded',
        limit: 'asset_bytes',
        current: 3 * PNG.length,
        max: 3 * PNG.length,
        requested: PNG.length,
        subscriptions_available: false,
        message: expect.stringMatching(/nothing was stored/),
      },
      code: 'SVC_ERR_STORAGE_QUOTA_EXCEEDED',
    });
    expect(expectOk(await team.request('GET', '/v1/billing')).usage.asset_bytes).toBe(3 * PNG.length);
    // Per team: the other team still has room.
    expectOk(await image(other), 201);
  });

  it('goes back to the default quota when the owner leaves it out', async () => {
    expect(expectOk(await setDocCaps(t, caps)).caps.max_asset_bytes).toBe(QUOTA);
    expectOk(await image(team), 201);
  });
});
