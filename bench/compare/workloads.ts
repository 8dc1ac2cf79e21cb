/**
 * What the comparison times: the requests a person's day is made of, one call each, as the UI and
 * agents make them. Each workload prepares one round's calls for a node before the timing starts
 * (team requests signed, document bodies edited), so the timed part is the request and its answer.
 */
import type { TeamHeaders } from '../../server/auth/team-envelope-client.ts';
import { bearer, call } from './http.ts';
import { edit, SEARCH_WORD, type SeededNode } from './seed.ts';

export interface Workload {
  name: string;
  /** `count` calls of this workload against `node`, ready to be timed one at a time. */
  prepare(node: SeededNode, count: number): () => Promise<unknown>;
}

const MARKDOWN = 'text/markdown; charset=utf-8';

/** Hands out what was prepared for a round, one item per call. */
function oneEach<T>(items: T[], what: string): () => T {
  let next = 0;
  return () => {
    const item = items[next++];
    if (item === undefined) throw new Error(`${what}: more calls than the ${items.length} prepared`);
    return item;
  };
}

/** A team-signed GET of `path`, signed ahead `count` times (the node accepts each signature once). */
function signedRead(node: SeededNode, path: string, count: number): () => Promise<unknown> {
  const headers = oneEach<TeamHeaders>(
    Array.from({ length: count }, () => node.member.sign('GET', path)),
    path,
  );
  return () => call(`${node.url}${path}`, { headers: headers() });
}

export const WORKLOADS: readonly Workload[] = [
  {
    name: 'mail-send',
    prepare: (node) => {
      let i = 0;
      return () =>
        call(`${node.url}/v1/messages`, {
          method: 'POST',
          headers: bearer(node.alice.apiKey),
          body: JSON.stringify({
            to_address: node.bobAddress,
            subject: `Timed note ${i++}`,
            body: 'A short note about the plan, sent while the clock runs. '.repeat(4),
          }),
        });
    },
  },
  {
    name: 'inbox-page',
    prepare: (node) => () => call(`${node.url}/v1/messages/inbox?limit=50`, { headers: bearer(node.bob.apiKey) }),
  },
  {
    name: 'mail-read',
    prepare: (node) => () => call(`${node.url}/v1/messages/${encodeURIComponent(node.mailId)}/rendered`, { headers: bearer(node.bob.apiKey) }),
  },
  {
    name: 'chat-send',
    prepare: (node) => {
      let i = 0;
      return () =>
        call(`${node.url}/v1/chat/sessions/${node.chatSessionId}/messages`, {
          method: 'POST',
          headers: bearer(node.alice.apiKey),
          body: JSON.stringify({ body: `Timed line ${i++}: noted, moving on.` }),
        });
    },
  },
  {
    name: 'document-save',
    prepare: (node, count) => {
      const { document } = node;
      const path = `/v1/documents/${document.slug}/versions`;
      // Each save is a small edit of the one before, as typing and saving make them; the bodies
      // follow the same sequence on both nodes.
      const saves = Array.from({ length: count }, () => {
        document.body = edit(document.body, ++document.edits);
        return { body: document.body, headers: node.member.sign('POST', path, document.body) };
      });
      const next = oneEach(saves, path);
      return () => {
        const save = next();
        return call(`${node.url}${path}`, { method: 'POST', headers: { ...save.headers, 'content-type': MARKDOWN }, body: save.body });
      };
    },
  },
  {
    name: 'search',
    prepare: (node) => () => call(`${node.url}/v1/search?q=${SEARCH_WORD}&limit=20`, { headers: bearer(node.bob.apiKey) }),
  },
  {
    name: 'shelf-read',
    prepare: (node, count) => signedRead(node, '/v1/shelf?limit=50', count),
  },
  {
    name: 'identity-list',
    prepare: (node) => () => call(`${node.url}/v1/node/identities`, { headers: bearer(node.ownerToken) }),
  },
];

export const WORKLOAD_NAMES: readonly string[] = WORKLOADS.map((w) => w.name);
