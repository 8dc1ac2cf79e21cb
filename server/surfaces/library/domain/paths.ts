/**
 * The one rule for a file path inside a blueprint or profile payload: POSIX,
 * relative, already normal, and never something that must not leave a machine. Payload imports and
 * changeset file assets both go through here, so a path accepted in one is accepted in the other.
 *
 * Refused, fail closed:
 * - anything but a plain relative path: empty, longer than MAX_PATH_LENGTH, a leading `/`, a `\`,
 *   `.`/`..`/empty segments, a scheme, host or drive (`:` in the first segment);
 * - characters that change how a path reads without being seen (invisibleProblem below): control
 *   and format characters, bidirectional overrides (`notes\u202Etxt.md` displays as `notesdm.txt`),
 *   zero-width and other default-ignorable characters, line and paragraph separators, and spaces
 *   other than U+0020. A reviewer must see the path a file will really be written to;
 * - the directories upstream excludes when collecting files (EXCLUDED_DIRS) at any depth;
 * - secrets: any `.aw`/`.svc` segment (node and agent state), `.ssh`/`.gnupg` directories, and files
 *   whose name looks like a key, certificate, token or secret (secretNameProblem below). Only the
 *   file name is matched by "contains secret/token", so a skill directory called `token-budget`
 *   stays usable while `api-token.txt` does not.
 */

export const MAX_PATH_LENGTH = 512;

export const EXCLUDED_DIRS: readonly string[] = ['.git', '.hg', '.svn', 'node_modules', '.cache', 'dist', 'build', 'target', 'tmp', 'vendor', '__pycache__'];

const SECRET_SEGMENTS: readonly string[] = ['.aw', '.svc', '.ssh', '.gnupg'];
const KEY_EXTENSIONS: readonly string[] = ['.pem', '.key', '.crt', '.cer', '.der', '.p12', '.pfx', '.jks', '.keystore'];
const KEY_PREFIXES: readonly string[] = ['id_rsa', 'id_dsa', 'id_ecdsa', 'id_ed25519', '.env'];
const CREDENTIAL_FILES: readonly string[] = ['.netrc', '.pgpass', '.npmrc', '.pypirc'];
const SECRET_WORDS: readonly string[] = ['secret', 'token'];

/**
 * Cc and Cf (C0/C1 controls, bidi embeddings, overrides and isolates, U+200B-U+200F, U+061C,
 * U+FEFF...), Zl/Zp (U+2028/U+2029), lone surrogates (Cs: no UTF-8 form), every Unicode
 * default-ignorable code point (variation selectors, Hangul fillers, tags...), and Zs but the
 * ASCII space (`[^\P{Zs} ]`: a space separator that is not U+0020).
 */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Default_Ignorable_Code_Point}]|[^\P{Zs} ]/u;
const INVISIBLE_ALL = new RegExp(INVISIBLE.source, 'gu');
/** What to call a refused character, most specific first. */
const INVISIBLE_KINDS: readonly [RegExp, string][] = [
  [/\p{Cc}/u, 'a control character'],
  [/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u, 'a bidirectional-text control'],
  [/\p{Cs}/u, 'a lone surrogate (not valid Unicode)'],
  [/\p{Zs}/u, 'a space other than U+0020'],
];

const codePoint = (char: string): string => `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;

/** Names the first invisible character of `path` by code point, and shows the path with each one spelled out. */
function invisibleProblem(path: string): string | null {
  const char = INVISIBLE.exec(path)?.[0];
  if (char === undefined) return null;
  const kind = INVISIBLE_KINDS.find(([pattern]) => pattern.test(char))?.[1] ?? 'an invisible or formatting character';
  const shown = path.replace(INVISIBLE_ALL, (c) => `<${codePoint(c)}>`);
  return `path "${shown}" contains ${codePoint(char)}, ${kind}; paths must read as they are`;
}

function secretNameProblem(name: string): string | null {
  const lower = name.toLowerCase();
  if (KEY_EXTENSIONS.some((ext) => lower.endsWith(ext))) return `"${name}" looks like a key or certificate file`;
  if (KEY_PREFIXES.some((prefix) => lower.startsWith(prefix)) || CREDENTIAL_FILES.includes(lower)) {
    return `"${name}" looks like a key or credentials file`;
  }
  const word = SECRET_WORDS.find((w) => lower.includes(w));
  return word ? `"${name}" looks like a ${word} file` : null;
}

/** Why `path` is not an acceptable payload path, or null when it is. */
export function pathProblem(path: string): string | null {
  if (path.length === 0) return 'path must not be empty';
  if (path.length > MAX_PATH_LENGTH) return `path must be at most ${MAX_PATH_LENGTH} characters`;
  if (path.startsWith('/')) return 'path must be relative (no leading /)';
  if (path.includes('\\')) return 'path must use / as separator (no \\)';
  const invisible = invisibleProblem(path);
  if (invisible) return invisible;
  const segments = path.split('/');
  if (segments[0]?.includes(':')) return 'path must not carry a scheme, host or drive (":" in the first segment)';
  if (segments.some((s) => s === '')) return 'path must not have empty segments (// or a trailing /)';
  if (segments.some((s) => s === '.' || s === '..')) return 'path must not have "." or ".." segments';
  const excluded = segments.slice(0, -1).find((s) => EXCLUDED_DIRS.includes(s));
  if (excluded !== undefined) return `path must not be inside an excluded directory (${excluded}/)`;
  const secretDir = segments.find((s) => SECRET_SEGMENTS.includes(s.toLowerCase()));
  if (secretDir !== undefined) return `path must not be inside ${secretDir}/ (secrets and node state never travel)`;
  const name = segments[segments.length - 1] ?? '';
  const secret = secretNameProblem(name);
  return secret ? `${secret}; secrets never travel in a payload` : null;
}
