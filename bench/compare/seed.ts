/**
 * Both nodes are filled the same way, over HTTP and the owner API only, so a base commit seeds
 * exactly as the head does whatever its tables look like: a namespace and project, identities,
 * mail between two of them, a chat, a team with a document and a shelf of profiles. Sizes are
 * small on purpose: the comparison is about the cost of each request, not of scale, which the
 * scale benchmarks measure.
 */
import { profileFiles } from '../../test/support/library.ts';
import { bearer, call } from './http.ts';
import { teamMember, type TeamMember } from './team-member.ts';
import type { TreeNode } from './tree-node.ts';

export const DOMAIN = 'bench.test';
const IDENTITIES = 30;
const MAILS = 300;
const CHAT_MESSAGES = 50;
const PROFILES = 30;
const DOCUMENT_BYTES = 20_000;
/** The word one mail in ten carries, which the search workload asks for. */
export const SEARCH_WORD = 'quarterly';
const SEARCH_HITS = MAILS / 10;

export interface Identity {
  agentId: string;
  apiKey: string;
}

export interface SeededNode {
  url: string;
  ownerToken: string;
  /** Sends mail and chat. */
  alice: Identity;
  /** Receives them: its inbox and search are read. */
  bob: Identity;
  bobAddress: string;
  chatSessionId: string;
  /** A mail in bob's inbox, read by the mail-read workload. */
  mailId: string;
  member: TeamMember;
  /** The document the save workload writes new versions of; `body` is its latest. */
  document: { slug: string; body: string; edits: number };
}

/** Numbered paragraphs of ASCII Markdown, about `bytes` long. */
export function markdown(bytes: number): string {
  let text = '# Comparison document\n';
  for (let i = 0; text.length < bytes; i++) text += `\nParagraph ${i}: the team reviews the plan, line by line, before it ships.`;
  return text.slice(0, bytes);
}

/** `body` with a few bytes replaced at a place that moves with `i`: a small edit, as people make. */
export function edit(body: string, i: number): string {
  const at = Math.floor((((i * 7919) % 997) / 997) * (body.length - 40)) + 20;
  return `${body.slice(0, at)}[edit ${i}]${body.slice(at + 5)}`;
}

const post = <T>(url: string, token: string, body: unknown): Promise<T> =>
  call<T>(url, { method: 'POST', headers: bearer(token), ...(body === undefined ? {} : { body: JSON.stringify(body) }) });

async function identities(node: TreeNode): Promise<Identity[]> {
  const { url, ownerToken } = node;
  await post(`${url}/v1/node/namespaces`, ownerToken, { domain: DOMAIN });
  const { project_id } = await post<{ project_id: string }>(`${url}/v1/node/projects`, ownerToken, { slug: 'compare', name: 'Compare', namespace: DOMAIN });
  const made: Identity[] = [];
  for (let i = 0; i < IDENTITIES; i++) {
    const name = i === 0 ? 'alice' : i === 1 ? 'bob' : `member-${String(i).padStart(2, '0')}`;
    const { agent_id } = await post<{ agent_id: string }>(`${url}/v1/node/identities`, ownerToken, { project_id, name });
    const { api_key } = await post<{ api_key: string }>(`${url}/v1/node/identities/${agent_id}/session-key`, ownerToken, undefined);
    made.push({ agentId: agent_id, apiKey: api_key });
  }
  return made;
}

/** Waits until the search index holds every seeded mail with the search word (it indexes in batches, after the sends). */
async function searchIndexed(url: string, bob: Identity): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const { results } = await call<{ results: unknown[] }>(`${url}/v1/search?q=${SEARCH_WORD}&limit=50`, { headers: bearer(bob.apiKey) });
    if (results.length >= SEARCH_HITS) return;
    if (Date.now() > deadline) throw new Error(`${url}: the search index holds ${results.length} of ${SEARCH_HITS} seeded mails after 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export async function seed(node: TreeNode): Promise<SeededNode> {
  const { url, ownerToken } = node;
  const [alice, bob] = (await identities(node)) as [Identity, Identity, ...Identity[]];
  const bobAddress = `${DOMAIN}/bob`;
  let mailId = '';
  for (let i = 0; i < MAILS; i++) {
    const subject = i % 10 === 0 ? `The ${SEARCH_WORD} figures, part ${i / 10}` : `Notes on item ${i}`;
    const body = `${i % 10 === 0 ? `The ${SEARCH_WORD} figures are attached. ` : ''}${'Some words about the plan and who does what next. '.repeat(8)}`;
    const sent = await post<{ message_id: string }>(`${url}/v1/messages`, alice.apiKey, { to_address: bobAddress, subject, body });
    if (i === MAILS / 2) mailId = sent.message_id;
  }
  const { session_id } = await post<{ session_id: string }>(`${url}/v1/chat/sessions`, alice.apiKey, {
    to_addresses: [bobAddress],
    message: 'Morning, shall we go through the plan?',
  });
  for (let i = 0; i < CHAT_MESSAGES; i++) {
    const from = i % 2 === 0 ? bob : alice;
    await post(`${url}/v1/chat/sessions/${session_id}/messages`, from.apiKey, { body: `Point ${i}: agreed, next one.` });
  }
  const member = await teamMember(url, ownerToken, 'compare');
  for (let i = 0; i < PROFILES; i++) {
    const body = JSON.stringify({ files: profileFiles({ ref: `profile-${String(i).padStart(2, '0')}` }) });
    await call(`${url}/v1/profiles`, { method: 'POST', headers: member.sign('POST', '/v1/profiles', body), body });
  }
  const document = { slug: 'plan', body: markdown(DOCUMENT_BYTES), edits: 0 };
  const created = JSON.stringify({ slug: document.slug, title: 'The plan', body: document.body });
  await call(`${url}/v1/documents`, { method: 'POST', headers: member.sign('POST', '/v1/documents', created), body: created });
  await searchIndexed(url, bob);
  return { url, ownerToken, alice, bob, bobAddress, chatSessionId: session_id, mailId, member, document };
}
