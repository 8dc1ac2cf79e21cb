/**
 * The library's services announce each write themselves, after it commits, whoever calls them:
 * here no HTTP is involved at all, only the services on a real encrypted database and the bus the
 * owner's feed listens to. A refused write, and a call that writes nothing, announce nothing.
 */
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { teamTopic } from '../../events/bus.ts';
import { CHANGESET_SCHEMA, profileFiles } from '../../../test/support/library.ts';
import { startCoreNode, type CoreNode } from '../../../test/support/core-node.ts';
import { checkPayloadFiles } from './domain/payload.ts';
import { createLibraryServices, type LibraryServices } from './services.ts';

let node: CoreNode;
let library: LibraryServices;
let teamId: string;
/** What the bus carried since the last reset, and whether each write had committed when it did. */
let heard: { topic: string; committed: boolean }[] = [];

beforeAll(async () => {
  node = await startCoreNode();
  library = createLibraryServices(node.ctx, node.services);
  teamId = node.services.teams.create('shelfwork', 'changes.test').team_id;
  node.ctx.bus.subscribeAll((topic) => heard.push({ topic, committed: !node.ctx.db.inTransaction }));
  return () => node.close();
});
beforeEach(() => {
  heard = [];
});

const files = (ref: string, version = '0.1.0') => checkPayloadFiles(profileFiles({ ref, version }), ['files']);
const announced = () => heard.filter((h) => h.topic === teamTopic(teamId));

describe('a library write made by calling its service (no HTTP)', () => {
  it('announces the team’s change on the bus once it has committed', () => {
    library.shelf.create(teamId, files('direct'), ['one']);
    expect(announced()).toEqual([{ topic: teamTopic(teamId), committed: true }]);
  });

  it('announces every kind of write: a version, tags, a binding, a proposal and its decision, a delete', () => {
    library.shelf.addVersion(teamId, 'direct', files('direct', '0.2.0'));
    library.shelf.setTags(teamId, 'direct', ['two']);
    library.bindings.bind(teamId, 'agent-1', { profile_ref: 'direct' });
    const author = { team_id: teamId, alias: 'author', acting_as: null };
    const read = library.shelf.get(teamId, 'direct', { files: true });
    const bases = 'proposal_asset_digests' in read ? read.proposal_asset_digests : {};
    const submitted = library.proposals.submit(author, {
      target: 'profile',
      profile_ref: 'direct',
      content: { schema: CHANGESET_SCHEMA, assets: [{ path: 'profile.yaml#mission', content: 'Go.', base_asset_digest: bases['profile.yaml#mission'] }] },
    });
    library.proposals.approve(author, submitted.proposal_id);
    library.shelf.delete(teamId, 'direct');
    expect(announced()).toHaveLength(6);
    expect(announced().every((h) => h.committed)).toBe(true);
  });

  it('announces nothing for a write it refuses, nor for a call that writes nothing', () => {
    library.shelf.create(teamId, files('kept'), []);
    heard = [];
    expect(() => library.shelf.create(teamId, files('kept'), [])).toThrow(/already on the shelf/);
    expect(() => library.shelf.addVersion(teamId, 'kept', files('kept'))).toThrow(/versions are immutable/);
    library.bindings.materialize(teamId, { profile_ref: 'kept', runtime_kind: 'claude-code', target: 'local' });
    expect(announced()).toEqual([]);
  });
});
