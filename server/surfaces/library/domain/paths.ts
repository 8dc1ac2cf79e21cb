/**
 * The one rule for a file path inside a blueprint or profile payload (research A2, A3): POSIX,
 * relative, already normal, and never something that must not leave a machine. Payload imports and
 * changeset file assets both go through here, so a path accepted in one is accepted in the other.
 *
 * Refused, fail closed:
 * - anything but a plain relative path: empty, longer than MAX_PATH_LENGTH, a leading `/`, a `\`,
 *   control characters, `.`/`..`/empty segments, a scheme, host or drive (`:` in the first segment);
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

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

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
  if (CONTROL.test(path)) return 'path must not contain control characters';
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
