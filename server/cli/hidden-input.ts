/**
 * Asking for a secret on the terminal without echoing it: the prompt goes to stderr (stdout is
 * kept for --json), the typed characters are read in raw mode and never written back. Only when
 * stdin and stderr are a terminal; otherwise the caller says where else the secret can come from.
 */
import { CliError } from './cli-error.ts';

export const hasTerminal = (): boolean => process.stdin.isTTY && process.stderr.isTTY;

export function askHidden(question: string): Promise<string> {
  const stdin = process.stdin;
  // Raw (no echo) before the question shows: an answer typed as soon as it does is never echoed.
  stdin.setRawMode(true);
  process.stderr.write(question);
  stdin.setEncoding('utf8');
  stdin.resume();
  return new Promise<string>((resolve, reject) => {
    let typed = '';
    const finish = (error: Error | null): void => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
      if (error === null) resolve(typed);
      else reject(error);
    };
    const onData = (chunk: string): void => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n') return finish(null);
        // Ctrl-C and Ctrl-D: the person stops.
        if (char === '\u0003' || char === '\u0004') return finish(new CliError('cancelled'));
        if (char === '\u007f' || char === '\b') typed = typed.slice(0, -1);
        else if (char >= ' ') typed += char;
      }
    };
    stdin.on('data', onData);
  });
}
