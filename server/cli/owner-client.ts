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

/** Calls the owner API of the node on `dataDir`; a 4xx/5xx becomes one clear line. */
export async function ownerRequest<T>(dataDir: string, method: string, path: string, body?: unknown): Promise<T> {
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
    const detail = typeof payload.detail === 'string' ? payload.detail : JSON.stringify(payload.detail ?? response.statusText);
    throw new CliError(`${method} ${path} failed (${response.status}): ${detail}`);
  }
  return payload as T;
}
