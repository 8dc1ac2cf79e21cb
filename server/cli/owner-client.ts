/**
 * Owner commands reach the node running on a data dir through node.json and the owner API, over
 * the same guarded client as every CLI request to a node (node-request.ts).
 */
import { readNodeFile, type NodeFile } from '../node-file.ts';
import { CliError } from './cli-error.ts';
import { askNode, httpUrl, OWNER_BUDGET, type NodeBudget } from './node-request.ts';
import { terminalText } from './output.ts';

// Every command takes CliError from here, as it always has.
export { CliError };

function running(dataDir: string): NodeFile {
  const file = readNodeFile(dataDir);
  if (!file) throw new CliError(`no svc-node is running on ${dataDir} (start one with: svc-node serve --data ${dataDir})`);
  try {
    process.kill(file.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') {
      throw new CliError(`no svc-node is running on ${dataDir} (node.json names pid ${file.pid}, which has exited)`);
    }
  }
  return file;
}

/** What the node answered: the status (201 new, 200 already there) and the body. */
export interface OwnerAnswer<T> {
  status: number;
  body: T;
}

/**
 * A refusal's `detail` for a terminal: a sentence as it is; a validation list (`[{loc, msg}]`)
 * as one indented line per problem, "name: use 1-64 letters…", never as raw JSON. Every part of
 * it is the node's text, so each is shown terminal-safe (a hostile node's escape sequences are
 * printed as `\x1b…`, never acted on).
 */
export function detailLines(detail: unknown, fallback: string): string {
  if (typeof detail === 'string' && detail.trim() !== '') return terminalText(detail);
  if (Array.isArray(detail) && detail.length > 0) {
    const lines = detail.slice(0, 20).map((issue: unknown) => {
      if (typeof issue !== 'object' || issue === null) return terminalText(String(issue));
      const { loc, msg } = issue as { loc?: unknown; msg?: unknown };
      const field = Array.isArray(loc) ? loc.filter((part) => part !== 'body' && part !== 'query' && part !== 'path').join('.') : '';
      const text = typeof msg === 'string' ? msg : JSON.stringify(msg);
      return terminalText(field === '' ? text : `${field}: ${text}`);
    });
    return lines.length === 1 ? (lines[0] as string) : `\n${lines.map((line) => `  ${line}`).join('\n')}`;
  }
  return terminalText(fallback);
}

/** The `detail` of a JSON refusal body, if it has one. */
export function detailOf(body: unknown): unknown {
  return typeof body === 'object' && body !== null ? (body as { detail?: unknown }).detail : undefined;
}

/** Calls the owner API of the node on `dataDir`; a 4xx/5xx becomes a clear message (one line per problem). */
export async function ownerCall<T>(
  dataDir: string,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  body?: unknown,
  budget: NodeBudget = OWNER_BUDGET,
): Promise<OwnerAnswer<T>> {
  const node = running(dataDir);
  const url = httpUrl(`${node.core_url}${path}`, `the core_url in ${dataDir}/node.json`);
  const request = { method, headers: { authorization: `Bearer ${node.owner_token}` }, ...(body === undefined ? {} : { json: JSON.stringify(body) }) };
  const answer = await askNode(url, request, budget, (reason, error) =>
    error.kind === 'unreachable' ? `the svc-node on ${dataDir} does not answer at ${node.core_url}` : `the svc-node on ${dataDir}: ${reason}`,
  );
  if (!answer.ok) {
    const detail = detailLines(detailOf(answer.body), answer.statusText);
    throw new CliError(`${method} ${path} failed (${answer.status}):${detail.startsWith('\n') ? '' : ' '}${detail}`);
  }
  if (answer.body === null) throw new CliError(`${method} ${path}: the svc-node on ${dataDir} answered ${answer.status} without JSON`);
  return { status: answer.status, body: answer.body as T };
}

/** Calls the owner API of the node on `dataDir` for its answer's body. */
export async function ownerRequest<T>(dataDir: string, method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<T> {
  return (await ownerCall<T>(dataDir, method, path, body)).body;
}
