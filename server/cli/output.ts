/** What an owner command prints: one JSON line with --json (for scripts), else text for people. */
export function print(value: unknown, json: boolean, text: string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${text}\n`);
}
