/**
 * A failure the command line explains in one message (main.ts prints it and exits 1). Its text is
 * made terminal-safe here, whoever built it: a node's words inside it cannot drive the terminal.
 */
import { terminalLines } from './output.ts';

export class CliError extends Error {
  constructor(message: string) {
    super(terminalLines(message));
  }
}
