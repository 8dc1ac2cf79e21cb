/**
 * One request from the command line to a node, through the guarded client (server/net/
 * cli-client.ts): the answer's status and JSON body, or a CliError saying, in our words, why
 * there is none. The budgets are per kind of call, and docs/federation.md lists them
 * ("The command line and the nodes it joins").
 */
import { STATUS_CODES } from 'node:http';
import { requestNode, type CliRequest } from '../net/cli-client.ts';
import { answerJson } from '../net/remote-client.ts';
import { RemoteError } from '../net/remote-error.ts';
import { CliError } from './cli-error.ts';

export interface NodeBudget {
  /** The whole request, in milliseconds. */
  timeoutMs: number;
  /** The largest answer body, in bytes. */
  maxBytes: number;
}

/**
 * Joining and connecting (`team join`, `team connect`): the node's answers are a certificate and
 * a few ids, a few KiB; the node answers them at once. The time is the node's own budget for what
 * it asks of other nodes.
 */
export const AGENT_BUDGET: NodeBudget = { timeoutMs: 10_000, maxBytes: 64 * 1024 };

/** The owner commands, to the node on their data dir: some wait on DNS; listings may be long. */
export const OWNER_BUDGET: NodeBudget = { timeoutMs: 60_000, maxBytes: 16 * 1024 * 1024 };

/** A backup of the database: the node reads and seals every page before it answers (a large node, minutes). */
export const BACKUP_BUDGET: NodeBudget = { timeoutMs: 60 * 60_000, maxBytes: 64 * 1024 };

export interface NodeAnswer {
  status: number;
  ok: boolean;
  /** The JSON body; null when the answer is not JSON. */
  body: unknown;
  /** The status's standard reason ("Forbidden"), for a refusal without a detail. */
  statusText: string;
}

function sizeText(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${bytes / (1024 * 1024)} MiB` : `${bytes / 1024} KiB`;
}

/** Why a request to `where` got no answer, in words for the user (never the socket's own text). */
export function unansweredText(error: RemoteError, where: string, budget: NodeBudget): string {
  switch (error.kind) {
    case 'timed-out':
      return `no answer at ${where} within ${budget.timeoutMs / 1000} s`;
    case 'too-large':
      return `the answer at ${where} is larger than ${sizeText(budget.maxBytes)}, so it was not read`;
    case 'redirected':
      return `${where} answered with a redirect, which is never followed (nothing was sent to where it points): use the node's own URL`;
    default:
      return `no answer at ${where}`;
  }
}

/** The answer to `method url`, or a CliError; `describe` words a failure (given our reason and its kind). */
export async function askNode(
  url: URL,
  request: Omit<CliRequest, 'maxBytes' | 'timeoutMs'>,
  budget: NodeBudget,
  describe: (reason: string, error: RemoteError) => string = (reason) => reason,
): Promise<NodeAnswer> {
  let answer;
  try {
    answer = await requestNode(url, { ...request, ...budget });
  } catch (error) {
    if (!(error instanceof RemoteError)) throw error;
    throw new CliError(describe(unansweredText(error, url.href, budget), error));
  }
  let body: unknown = null;
  try {
    body = answerJson(answer);
  } catch {
    // Not JSON: a refusal falls back to its status text; a success is refused by the caller.
  }
  return { status: answer.status, ok: answer.status >= 200 && answer.status < 300, body, statusText: STATUS_CODES[answer.status] ?? 'error' };
}

/** An http(s) URL the user gave, or a CliError naming the flag or argument. */
export function httpUrl(value: string, what: string): URL {
  const url = URL.parse(value);
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) throw new CliError(`${what} must be an http(s) URL, not ${value}`);
  return url;
}
