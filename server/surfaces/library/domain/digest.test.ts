import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { readBlueprintPayload } from './blueprint-yaml.ts';
import {
  blueprintDigest,
  CHANGESET_SCHEMA,
  IMPORT_PAYLOAD_SCHEMA,
  partDigests,
  payloadDigest,
  PROFILE_PAYLOAD_SCHEMA,
  profileDigest,
  proposalAssetDigests,
} from './digest.ts';
import { checkPayloadFiles, payloadFile } from './payload.ts';

const h = (text: string) => `sha256:${createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex')}`;

const PROFILE_YAML = 'id: p\nversion: "1"\nmission: Help\n';
const FILES = [payloadFile('profile.yaml', PROFILE_YAML), payloadFile('instructions.md', '# Hi\n')];

describe('schema strings', () => {
  it('are ours (DESIGN §5)', () => {
    expect([IMPORT_PAYLOAD_SCHEMA, PROFILE_PAYLOAD_SCHEMA, CHANGESET_SCHEMA]).toEqual([
      'svc.blueprint.import-payload.v1',
      'svc.blueprint.profile-payload.v1',
      'svc.library.profile-asset-changeset.v1',
    ]);
  });
});

describe('payload digests', () => {
  it('hash the canonical {files sorted by path, schema} (checked against hand-written bytes)', () => {
    const canonical =
      `{"files":[{"content_utf8":"# Hi\\n","path":"instructions.md","sha256":"${h('# Hi\n')}"},` +
      `{"content_utf8":"id: p\\nversion: \\"1\\"\\nmission: Help\\n","path":"profile.yaml","sha256":"${h(PROFILE_YAML)}"}],` +
      `"schema":"svc.blueprint.profile-payload.v1"}`;
    expect(profileDigest(FILES)).toBe(h(canonical));
  });

  it('are stable for fixed inputs', () => {
    expect(profileDigest(FILES)).toBe('sha256:103b8082ceb8f4ea11db42719e0f069fa4cea6748b1d20d603dd19b76da4502b');
  });

  it('do not depend on file order or on fields beyond path, content and sha256', () => {
    const reversed = [...FILES].reverse().map((f) => ({ ...f, tags: ['x'] }));
    expect(profileDigest(reversed)).toBe(profileDigest(FILES));
  });

  it('depend on the schema string and on every byte of content', () => {
    expect(blueprintDigest(FILES)).toBe(payloadDigest(FILES, IMPORT_PAYLOAD_SCHEMA));
    expect(blueprintDigest(FILES)).not.toBe(profileDigest(FILES));
    const changed = [FILES[0]!, payloadFile('instructions.md', '# Hi \n')];
    expect(profileDigest(changed)).not.toBe(profileDigest(FILES));
  });

  it('give a profile inside a blueprint the same digest as the standalone profile', () => {
    const blueprint = checkPayloadFiles(
      [
        { path: 'blueprint.yaml', content_utf8: 'id: bp\nversion: 1.0.0\nname: BP\nprofiles:\n  - id: p\n' },
        { path: 'README.md', content_utf8: 'readme' },
        ...FILES.map((f) => ({ path: `profiles/p/${f.path}`, content_utf8: f.content_utf8 })),
      ],
      [],
    );
    const [inside] = readBlueprintPayload(blueprint).profiles;
    expect(profileDigest(inside!.files)).toBe(profileDigest(FILES));
  });
});

describe('partDigests', () => {
  it('has file:<path> for every file and field:<name> for all 11 field assets, null when absent', () => {
    const parts = partDigests(FILES);
    expect(Object.keys(parts).sort()).toEqual(
      [
        'file:instructions.md',
        'file:profile.yaml',
        ...[
          'name',
          'mission',
          'accepted_work',
          'instructions',
          'runtime_assumptions',
          'memory_policy',
          'expected_apps',
          'event_subscriptions',
          'approval_required',
          'artifacts',
          'skills',
        ].map((f) => `field:${f}`),
      ].sort(),
    );
    expect(parts['file:instructions.md']).toBe(h('# Hi\n'));
    expect(parts['field:mission']).toBe(h('"Help"'));
    expect(parts['field:name']).toBe(h('null'));
  });

  it('digests structured fields canonically (key order in YAML does not matter)', () => {
    const a = [payloadFile('profile.yaml', 'id: p\nversion: "1"\nmemory_policy: {mode: m, proposal_target: library}\n')];
    const b = [payloadFile('profile.yaml', 'id: p\nversion: "1"\nmemory_policy:\n  proposal_target: library\n  mode: m\n')];
    expect(partDigests(a)['field:memory_policy']).toBe(h('{"mode":"m","proposal_target":"library"}'));
    expect(partDigests(b)['field:memory_policy']).toBe(partDigests(a)['field:memory_policy']);
  });
});

describe('proposalAssetDigests', () => {
  it('keys files by path (profile.yaml included) and only present fields as profile.yaml#<field>', () => {
    expect(proposalAssetDigests(FILES)).toEqual({
      'profile.yaml': h(PROFILE_YAML),
      'instructions.md': h('# Hi\n'),
      'profile.yaml#mission': h('"Help"'),
    });
  });

  it('lists a field that is present with a null value', () => {
    const files = [payloadFile('profile.yaml', 'id: p\nversion: "1"\nname: null\n')];
    expect(proposalAssetDigests(files)['profile.yaml#name']).toBe(h('null'));
  });

  it('keeps a file named __proto__ as an ordinary key', () => {
    const digests = proposalAssetDigests([...FILES, payloadFile('__proto__', 'x')]);
    expect(Object.hasOwn(digests, '__proto__')).toBe(true);
    expect(digests['__proto__']).toBe(h('x'));
  });
});
