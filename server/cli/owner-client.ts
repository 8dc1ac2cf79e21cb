/**
 * Owner commands reach the node running on a data dir through node.json and the owner API.
 */
import { readNodeFile, type NodeFile } from '../node-file.ts';

export class CliError extends Error {}

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
 * as one indented line per problem, "name: use 1-64 letters…", never as raw JSON.
 */
export function detailLines(detail: unknown, fallback: string): string {
  if (typeof detail === 'string' && detail.trim() !== '') return detail;
  if (Array.isArray(detail) && detail.length > 0) {
    const lines = detail.map((issue: unknown) => {
      if (typeof issue !== 'object' || issue === null) return String(issue);
      const { loc, msg } = issue as { loc?: unknown; msg?: unknown };
      const field = Array.isArray(loc) ? loc.filter((part) => part !== 'body' && part !== 'query' && part !== 'path').join('.') : '';
      const text = typeof msg === 'string' ? msg : JSON.stringify(msg);
      return field === '' ? text : `${field}: ${text}`;
    });
    return lines.length === 1 ? (lines[0] as string) : `\n${lines.map((line) => `  ${line}`).join('\n')}`;
  }
  return fallback;
}

/** Calls the owner API of the node on `dataDir`; a 4xx/5xx becomes a clear message (one line per problem). */
export async function ownerCall<T>(dataDir: string, method: string, path: string, body?: unknown): Promise<OwnerAnswer<T>> {
  const node = running(dataDir);
  let response: Response;
  try {
    response = await fetch(`${node.core_url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${node.owner_token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    throw new CliError(`the svc-node on ${dataDir} does not answer at ${node.core_url}`);
  }
  const payload = (await response.json().catch(() => ({}))) as { detail?: unknown };
  if (!response.ok) {
    const detail = detailLines(payload.detail, response.statusText);
    throw new CliError(`${method} ${path} failed (${response.status}):${detail.startsWith('\n') ? '' : ' '}${detail}`);
  }
  return { status: response.status, body: payload as T };
}

/** Calls the owner API of the node on `dataDir` for its answer's body. */
export async function ownerRequest<T>(dataDir: string, method: string, path: string, body?: unknown): Promise<T> {
  return (await ownerCall<T>(dataDir, method, path, body)).body;
}
