import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { validationIssues } from '../../../../test/support/expect.ts';
import type { ValidationIssue } from '../../../errors.ts';
import { checkPayloadFiles, contentSha256, MAX_FILES } from './payload.ts';

const sha = (text: string) => `sha256:${createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex')}`;

/** The one issue a single bad path produces. */
function pathIssue(path: string): ValidationIssue {
  const issues = validationIssues(() => checkPayloadFiles([{ path, content_utf8: 'x' }], ['body', 'files']));
  expect(issues).toHaveLength(1);
  expect(issues[0]?.loc).toEqual(['body', 'files', 0, 'path']);
  return issues[0] as ValidationIssue;
}

describe('contentSha256', () => {
  it('is sha256: plus lowercase hex of the UTF-8 bytes', () => {
    expect(contentSha256('')).toBe('sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(contentSha256('café ✓')).toBe(sha('café ✓'));
  });
});

describe('checkPayloadFiles', () => {
  it('fills in omitted digests, accepts correct ones, and sorts by code point', () => {
    const out = checkPayloadFiles(
      [
        { path: 'z.md', content_utf8: 'z' },
        { path: 'skills/b/SKILL.md', content_utf8: 'b', sha256: sha('b') },
        { path: 'README.md', content_utf8: 'r' },
        { path: 'é.md', content_utf8: 'e' },
        { path: '\u{1F600}.md', content_utf8: 'smile' },
        { path: '\uFB01.md', content_utf8: 'fi' },
      ],
      [],
    );
    expect(out.map((f) => f.path)).toEqual(['README.md', 'skills/b/SKILL.md', 'z.md', 'é.md', '\uFB01.md', '\u{1F600}.md']);
    expect(out.find((f) => f.path === 'z.md')).toEqual({ path: 'z.md', content_utf8: 'z', sha256: sha('z') });
  });

  it('drops fields other than path, content_utf8 and sha256', () => {
    const [entry] = checkPayloadFiles([{ path: 'a.md', content_utf8: 'a', extra: 1 } as never], []);
    expect(Object.keys(entry ?? {}).sort()).toEqual(['content_utf8', 'path', 'sha256']);
  });

  it('refuses a supplied sha256 that does not match the content', () => {
    const issues = validationIssues(() => checkPayloadFiles([{ path: 'a.md', content_utf8: 'a', sha256: sha('b') }], ['files']));
    expect(issues).toEqual([{ loc: ['files', 0, 'sha256'], msg: 'sha256 does not match content', type: 'value_error' }]);
  });

  it('refuses an uppercase spelling of the right digest (one text form per digest)', () => {
    const issues = validationIssues(() => checkPayloadFiles([{ path: 'a.md', content_utf8: 'a', sha256: sha('a').toUpperCase() }], []));
    expect(issues[0]?.msg).toBe('sha256 does not match content');
  });

  it.each([
    ['', /empty/],
    ['/etc/passwd', /relative/],
    ['a\\b.md', /separator/],
    ['a/../b.md', /"\.\."/],
    ['./a.md', /"\."/],
    ['a//b.md', /empty segments/],
    ['dir/', /empty segments/],
    ['https://host/x.md', /scheme/],
    ['C:/x.md', /scheme/],
    ['a\u0000b', /control/],
    ['a\nb', /control/],
    ['x'.repeat(513), /at most 512/],
  ])('refuses the malformed path %j', (path, msg) => {
    expect(pathIssue(path).msg).toMatch(msg);
  });

  it.each(['.git', '.hg', '.svn', 'node_modules', '.cache', 'dist', 'build', 'target', 'tmp', 'vendor', '__pycache__'])(
    'refuses files inside the excluded directory %s/ at any depth',
    (dir) => {
      expect(pathIssue(`${dir}/x.md`).msg).toMatch(/excluded directory/);
      expect(pathIssue(`skills/a/${dir}/x.md`).msg).toMatch(/excluded directory/);
    },
  );

  it('allows a file that merely has an excluded directory name', () => {
    expect(checkPayloadFiles([{ path: 'artifacts/build', content_utf8: 'x' }], [])).toHaveLength(1);
  });

  it.each(['.aw/profile/ref.json', '.svc/x.md', 'skills/a/.svc/x', '.ssh/config', '.gnupg/x'])('refuses node state and secret directories: %s', (path) => {
    expect(pathIssue(path).msg).toMatch(/must not be inside/);
  });

  it.each([
    'server.pem',
    'keys/deploy.KEY',
    'tls.crt',
    'cert.p12',
    'id_rsa',
    'id_rsa.pub',
    'id_ed25519',
    '.env',
    '.env.local',
    'client_secret.json',
    'api-token.txt',
    'TOKENS.md',
    '.netrc',
  ])('refuses a secret-looking file name: %s', (path) => {
    expect(pathIssue(path).msg).toMatch(/secrets never travel/);
  });

  it('matches secret words against the file name only, so skill directories may use them', () => {
    expect(checkPayloadFiles([{ path: 'skills/token-budget/SKILL.md', content_utf8: 'x' }], [])).toHaveLength(1);
  });

  it('refuses duplicate paths, naming the first index', () => {
    const issues = validationIssues(() =>
      checkPayloadFiles(
        [
          { path: 'a.md', content_utf8: '1' },
          { path: 'a.md', content_utf8: '2' },
        ],
        [],
      ),
    );
    expect(issues).toEqual([{ loc: [1, 'path'], msg: 'duplicate path "a.md" (also at index 0)', type: 'value_error' }]);
  });

  it('refuses a path that is both a file and a directory', () => {
    const issues = validationIssues(() =>
      checkPayloadFiles(
        [
          { path: 'a', content_utf8: '1' },
          { path: 'a/b.md', content_utf8: '2' },
        ],
        [],
      ),
    );
    expect(issues).toEqual([{ loc: [0, 'path'], msg: '"a" is a file but other paths use it as a directory', type: 'value_error' }]);
  });

  it.each([
    ['line\u2028separator', /U\+2028/],
    ['paragraph\u2029separator', /U\+2029/],
    ['nul\u0000byte', /NUL/],
    ['lone \uD800 surrogate', /lone surrogate/],
    ['x'.repeat(1024 * 1024 + 1), /at most 1048576 bytes/],
  ])('refuses content %#', (content, msg) => {
    const issues = validationIssues(() => checkPayloadFiles([{ path: 'a.md', content_utf8: content }], []));
    expect(issues).toHaveLength(1);
    expect(issues[0]?.loc).toEqual([0, 'content_utf8']);
    expect(issues[0]?.msg).toMatch(msg);
  });

  it('refuses non-string fields', () => {
    const issues = validationIssues(() => checkPayloadFiles([{ path: 1, content_utf8: null, sha256: 5 } as never], []));
    expect(issues.map((i) => i.loc)).toEqual([
      [0, 'path'],
      [0, 'content_utf8'],
    ]);
  });

  it('reports every problem of a payload in one 422', () => {
    const issues = validationIssues(() =>
      checkPayloadFiles(
        [
          { path: '/abs', content_utf8: 'x' },
          { path: 'ok.md', content_utf8: 'x', sha256: sha('y') },
          { path: '.env', content_utf8: 'x' },
        ],
        ['body', 'files'],
      ),
    );
    expect(issues.map((i) => i.loc)).toEqual([
      ['body', 'files', 0, 'path'],
      ['body', 'files', 1, 'sha256'],
      ['body', 'files', 2, 'path'],
    ]);
  });

  it('refuses an empty payload and more than the file limit', () => {
    expect(validationIssues(() => checkPayloadFiles([], ['files']))).toEqual([{ loc: ['files'], msg: 'at least one file is required', type: 'value_error' }]);
    const many = Array.from({ length: MAX_FILES + 1 }, (_, i) => ({ path: `f${i}.md`, content_utf8: '' }));
    expect(validationIssues(() => checkPayloadFiles(many, ['files']))[0]?.msg).toBe(`at most ${MAX_FILES} files are allowed (got ${MAX_FILES + 1})`);
    expect(checkPayloadFiles(many.slice(0, MAX_FILES), [])).toHaveLength(MAX_FILES);
  });
});
