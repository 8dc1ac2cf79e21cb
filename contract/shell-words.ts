/**
 * A command line from its words, for a POSIX shell: what the CLI prints and the app copies must
 * run as it reads (a path with a space stays one word, nothing in it is expanded). Pure: no
 * imports, so both builds can take it.
 */

/** Characters a POSIX shell takes literally in a word. */
const SHELL_SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * One argument, quoted when it needs to be (single quotes, an embedded one as `'\''`), so it
 * reaches the command as one word, unexpanded.
 */
export function shellQuote(arg: string): string {
  if (SHELL_SAFE.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** A command line from its words, each quoted as it needs. */
export function shellCommand(...words: string[]): string {
  return words.map(shellQuote).join(' ');
}
