/**
 * What the command line prints. Much of it is a node's words (a refusal's detail, a team id, an
 * alias), and a node the user joins is not necessarily a friendly one: its text must not drive
 * the terminal (colour, a fake prompt, a rewritten title or clipboard through escape sequences,
 * text reordered by bidi controls), and a command line the CLI suggests must run as it reads.
 */

/**
 * Control characters (C0, DEL, C1), the bidi controls and the Unicode line breaks: shown as
 * escapes instead of reaching the terminal.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

function escaped(char: string): string {
  const code = char.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * Text from a node, fit for one line of a terminal: every control character (newlines too, so it
 * cannot forge lines) shown as `\xHH` / `\uHHHH`, and at most `maxChars` of it.
 */
export function terminalText(text: string, maxChars = 500): string {
  const cut = text.length > maxChars ? `${text.slice(0, maxChars)}…` : text;
  return cut.replace(CONTROL, escaped);
}

/** Each line of `text` made safe, the line breaks kept (for output the CLI laid out itself). */
export function terminalLines(text: string): string {
  return text
    .split('\n')
    .map((line) => terminalText(line, Infinity))
    .join('\n');
}

// Quoting a suggested command line is the contract's (the app copies the same lines).
export { shellCommand, shellQuote } from '../../contract/shell-words.ts';

/** In JSON: the characters JSON.stringify leaves as they are but a terminal would act on. */
const JSON_UNSAFE = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** What an owner command prints: one JSON line with --json (for scripts), else text for people. */
export function print(value: unknown, json: boolean, text: string): void {
  const out = json ? JSON.stringify(value).replace(JSON_UNSAFE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`) : terminalLines(text);
  process.stdout.write(`${out}\n`);
}
