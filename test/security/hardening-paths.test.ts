/**
 * Invisible characters in file paths: a blueprint or profile file path carrying a
 * bidirectional override shows a reviewer another name than the one materialize writes
 * (`skills/\u202Edm.exe/SKILL.md` reads as `skills/exe.md/SKILL.md`), and zero-width or other
 * format characters make two different paths look alike. They were accepted; each must be a 422
 * naming the path and the code point, with nothing stored, on a catalog import and on a shelf
 * profile version.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectOk, expectRefusal } from '../support/expect.ts';
import { blueprintPayload, file, profileFiles } from '../support/library.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { addTeamMember, type TeamClient } from '../support/teams.ts';

/** Path tricks: the code point the refusal must name, what it is, the path (titles never print the path). */
const TRICKS: [string, string, string][] = [
  ['U+202E', 'right-to-left override', 'skills/\u202Edm.exe/SKILL.md'],
  ['U+2066', 'left-to-right isolate', 'notes/\u2066readme\u2069.md'],
  ['U+200F', 'right-to-left mark', 'notes/a\u200Fb.md'],
  ['U+061C', 'Arabic letter mark', 'notes/a\u061Cb.md'],
  ['U+200B', 'zero-width space', 'notes/in\u200Bstructions.md'],
  ['U+200D', 'zero-width joiner', 'notes/a\u200Db.md'],
  ['U+FEFF', 'byte order mark', '\uFEFFnotes/a.md'],
  ['U+2028', 'line separator', 'notes/a\u2028b.md'],
  ['U+00AD', 'soft hyphen', 'notes/a\u00ADb.md'],
  ['U+00A0', 'no-break space', 'notes/a\u00A0b.md'],
  ['U+0085', 'C1 control', 'notes/a\u0085b.md'],
  ['U+3164', 'Hangul filler', 'notes/a\u3164b.md'],
];

let t: TestNode;
let team: TeamClient;

beforeAll(async () => {
  t = await startTestNode();
  team = await addTeamMember(t, { team: 'paths', domain: 'paths.test', scopes: ['library:read', 'library:write', 'library:publish'] });
  expectOk(await team.request('POST', '/v1/profiles', { body: { files: profileFiles({ ref: 'worker' }) } }), 201);
});
afterAll(async () => {
  await t.stop();
});

/** The 422's issue about `files[index].path`, whose location is the entry with the bad path. */
function pathIssue(body: { detail: { loc: (string | number)[]; msg: string }[] }, index: number): string {
  const issue = body.detail.find((i) => i.loc.at(-2) === index && i.loc.at(-1) === 'path');
  expect(issue, JSON.stringify(body.detail)).toBeDefined();
  return issue!.msg;
}

describe('a path with an invisible or bidirectional character', () => {
  it.each(TRICKS)('is refused on a catalog import: %s (%s)', async (codePoint, _name, path) => {
    const payload = blueprintPayload({ ref: 'tricks', profiles: [{ ref: 'worker' }] });
    payload.files.push(file(`profiles/worker/${path}`, '# Looks harmless\n'));
    const res = await team.request('POST', '/v1/blueprints/import', { body: payload });
    expectRefusal(res, 422);
    const msg = pathIssue(res.body, payload.files.length - 1);
    expect(msg).toContain(codePoint);
    // The path is named with the character spelled out, so the reader sees what it hides.
    expect(msg).toContain(`<${codePoint}>`);
    expectRefusal(await t.request('GET', '/v1/blueprints/tricks'), 404);
  });

  it.each(TRICKS)('is refused on a shelf profile version: %s (%s)', async (codePoint, _name, path) => {
    const before = expectOk(await team.request('GET', '/v1/profiles/worker/versions'));
    const files = profileFiles({ ref: 'worker', version: '0.2.0', files: { [path]: '# Looks harmless\n' } });
    const res = await team.request('POST', '/v1/profiles/worker/versions', { body: { files } });
    expectRefusal(res, 422);
    expect(
      pathIssue(
        res.body,
        files.findIndex((f) => f.path === path),
      ),
    ).toContain(codePoint);
    expect(expectOk(await team.request('GET', '/v1/profiles/worker/versions'))).toEqual(before);
  });

  it('leaves ordinary Unicode and ASCII spaces alone', async () => {
    const files = profileFiles({
      ref: 'worker',
      version: '0.3.0',
      files: { 'notes/café naïve.md': 'x\n', 'notes/日本語.md': 'y\n', 'notes/emoji-😀.md': 'z\n' },
    });
    expectOk(await team.request('POST', '/v1/profiles/worker/versions', { body: { files } }), 201);
  });
});
