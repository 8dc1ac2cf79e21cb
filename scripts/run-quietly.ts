/**
 * Runs a long step of setup (an apt install, say) without its output: one line says what happens,
 * a terminal sees the elapsed time tick while it lasts, and the line ends with how long it took. The
 * kept-back output is printed only when a command fails, so a failure still says why.
 */
import { spawn } from 'node:child_process';

export type Command = readonly [command: string, args: readonly string[]];

interface Options {
  env?: NodeJS.ProcessEnv;
  /** Where the lines go; a terminal gets the ticking elapsed time. */
  out?: NodeJS.WriteStream | NodeJS.WritableStream;
  /** How often the elapsed time is redrawn on a terminal. */
  tickMs?: number;
}

function run([command, args]: Command, env: NodeJS.ProcessEnv | undefined): Promise<{ code: number | null; output: string }> {
  return new Promise((resolvePromise) => {
    const chunks: Buffer[] = [];
    const child = spawn(command, [...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.on('error', (error) => resolvePromise({ code: null, output: `${error.message}\n` }));
    child.on('close', (code) => resolvePromise({ code, output: Buffer.concat(chunks).toString('utf8') }));
  });
}

/**
 * Runs `commands` one after another under the line `what`. Returns the seconds taken, or null when
 * a command failed (its output and exit code then printed).
 */
export async function runQuietly(what: string, commands: readonly Command[], options: Options = {}): Promise<number | null> {
  const out = options.out ?? process.stderr;
  const isTerminal = 'isTTY' in out && out.isTTY === true;
  const started = performance.now();
  const elapsed = (): string => `${Math.round((performance.now() - started) / 1000)} s`;
  out.write(isTerminal ? `${what}…` : `${what}…\n`);
  const ticker = isTerminal ? setInterval(() => out.write(`\r${what}… ${elapsed()}`), options.tickMs ?? 1000) : null;
  try {
    for (const command of commands) {
      const { code, output } = await run(command, options.env);
      if (code !== 0) {
        if (isTerminal) out.write('\n');
        out.write(output);
        out.write(`svc-node: \`${[command[0], ...command[1]].join(' ')}\` failed (exit ${code ?? 'error'})\n`);
        return null;
      }
    }
  } finally {
    if (ticker !== null) clearInterval(ticker);
  }
  const seconds = (performance.now() - started) / 1000;
  out.write(isTerminal ? `\r${what}… done in ${seconds.toFixed(0)} s\n` : `${what}: done in ${seconds.toFixed(0)} s\n`);
  return seconds;
}
