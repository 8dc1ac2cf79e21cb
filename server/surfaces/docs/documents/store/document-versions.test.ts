import { createHash, randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TeamMember } from '../../../../auth/team-envelope.ts';
import { encodeVersion, reconstruct } from '../../domain/delta.ts';
import {
  findVersionMetadata,
  insertVersion,
  listVersionMetadata,
  toDocumentVersion,
  toStoredVersion,
  versionChain,
  type NewVersion,
  type VersionAuthor,
} from './document-versions.ts';
import { insertDocument } from './documents.ts';
import { useStoreDatabase } from '../../../../../test/support/store-database.ts';

const db = useStoreDatabase();
const TEAM = 'versions:example.com';
const member: TeamMember = {
  team_id: TEAM,
  certificate_id: 'cert-1',
  alias: 'owner',
  did_key: 'did:key:z6Mk-owner',
  did_aw: null,
  address: 'example.com/owner',
  lifetime: 'persistent',
  scopes: ['docs:write'],
};

const bodyOf = (n: number): Buffer => Buffer.from(`# Plan\n\nversion ${n}\n`, 'utf8');
const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

function version(documentId: string, n: number, author: VersionAuthor, source: NewVersion['source'] = 'api'): NewVersion {
  const body = bodyOf(n);
  return {
    document_id: documentId,
    version_number: n,
    version_id: randomUUID(),
    stored: encodeVersion(n, n === 1 ? null : bodyOf(n - 1), body),
    body_bytes: body.length,
    body_sha256: sha256(body),
    source,
    author,
    created_at: `2026-01-01T00:00:0${n % 10}.000Z`,
  };
}

let documentId: string;
beforeAll(() => {
  documentId = randomUUID();
  insertDocument(db(), { document_id: documentId, team_id: TEAM, slug: 'plan', title: 'Plan', created_at: '2026-01-01T00:00:00.000Z' });
  insertVersion(db(), version(documentId, 1, { member }));
  insertVersion(db(), version(documentId, 2, { member, acting_as: { agent_id: 'agent-1', alias: 'ada', name: 'Ada', address: 'example.com/ada' } }));
  insertVersion(db(), version(documentId, 3, { member, editor_name: 'A visitor' }, 'present-link'));
});

describe('the document versions store', () => {
  it('keeps who made each version and names the author as a person reads it', () => {
    const [third, second, first] = listVersionMetadata(db(), documentId).map((row) => toDocumentVersion(row, null));
    expect([third, second, first].map((v) => v!.version_number)).toEqual([3, 2, 1]);
    expect(first).toMatchObject({ body: null, created_by_alias: 'owner', created_by_address: 'example.com/owner', certificate_id: 'cert-1', acting_as: null });
    expect(first!.author).toEqual({ kind: 'member', name: 'owner', address: 'example.com/owner' });
    expect(second!.acting_as).toEqual({ agent_id: 'agent-1', alias: 'ada', name: 'Ada', address: 'example.com/ada' });
    expect(second!.author).toEqual({ kind: 'identity', name: 'Ada', address: 'example.com/ada' });
    // A link edit is the visitor's, never the minter's, though the minter is recorded.
    expect(third).toMatchObject({ source: 'present-link', created_by_alias: 'owner', created_by_editor_name: 'A visitor' });
    expect(third!.author).toEqual({ kind: 'link-editor', name: 'A visitor', address: null });
  });

  it('finds one version, and none past the history', () => {
    const row = findVersionMetadata(db(), documentId, 2);
    expect(toDocumentVersion(row!, 'the body')).toMatchObject({ version_number: 2, body: 'the body', body_sha256: sha256(bodyOf(2)) });
    expect(findVersionMetadata(db(), documentId, 4)).toBeUndefined();
  });

  it('reads a chain in order that rebuilds the body it was stored from', () => {
    const chain = versionChain(db(), documentId, 1, 3);
    expect(chain.map((row) => row.kind)).toEqual(['snapshot', 'delta', 'delta']);
    expect(reconstruct(chain.map(toStoredVersion))).toEqual(bodyOf(3));
    expect(chain.at(-1)).toMatchObject({ body_bytes: bodyOf(3).length, body_sha256: sha256(bodyOf(3)) });
    expect(versionChain(db(), documentId, 2, 2)).toHaveLength(1);
  });

  it('maps the stored compressed flag to a boolean', () => {
    const row = { kind: 'delta' as const, prefix_len: 3, suffix_len: 4, payload: Buffer.from('x'), compressed: 1, body_bytes: 8, body_sha256: '00' };
    expect(toStoredVersion(row)).toEqual({ kind: 'delta', prefix_len: 3, suffix_len: 4, payload: Buffer.from('x'), compressed: true });
    expect(toStoredVersion({ ...row, compressed: 0 }).compressed).toBe(false);
  });
});
