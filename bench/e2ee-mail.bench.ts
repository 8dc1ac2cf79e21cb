/**
 * End-to-end encrypted mail's benchmarks (docs/adr/0008-end-to-end-mail.md), each against
 * plaintext measured in the same run (BENCH_ONLY=e2ee-mail). The sends and reads use only the
 * public API, over real HTTP, so whatever the node does to seal, store and serve mail is what is
 * measured; the storage and the seal's parts look underneath, to say where the time goes.
 *
 * Plaintext between two identities whose keys the node holds is refused (no downgrade), so the
 * plaintext side is the plaintext a node still sends: `content_mode: "legacy_plaintext_v1"` to a
 * self-custodial identity that publishes no encryption key.
 *
 * - e2ee-mail-throughput: `POST /v1/messages` per second, 8 concurrent clients, sealed in custody
 *   (8 custodial senders to a custodial recipient; the seal is made in the seal worker,
 *   crypto/e2ee/seal-pool.ts, and signed on the main thread) against that plaintext (the same senders to the
 *   keyless identity), in rounds that take turns, the order swapped each round, so load from
 *   elsewhere on the machine falls on both. Target: sealed / plaintext ≥ 0.8. Then one client
 *   alone, a sealed and a plaintext send in turns: what a sealed send adds to each send (p50).
 * - e2ee-inbox-page: `GET /v1/messages/inbox` at the default page size and the largest, on an
 *   inbox of 1,000 sealed mails read by its custodial recipient (the node opened each once, on
 *   arrival, and keeps it in mail_plaintext, so a page is a read) against an inbox of 1,000
 *   plaintext mails, the reads taking turns request by request. Beside them, the same 1,000
 *   sealed mails as a self-custodial recipient with its own key reads them: the envelopes
 *   themselves. Target: the opened page's p99 ≤ 30 ms.
 * - e2ee-cross-node-wake: `POST /v1/messages` on node A returning → `mail_message` on the
 *   recipient's stream on node B (the federation benchmark's pair of nodes), taking turns with a
 *   send to an identity on A (sealed, the local E2EE wake), idle streams open on both. Mail across
 *   nodes travels as it does today; the answer says whether it arrived end-to-end encrypted
 *   (read back from the recipient's inbox), so the same case measures the encrypted path once
 *   the node seals across nodes. Target: cross-node p99 ≤ 50 ms.
 * - e2ee-mail-storage: what 1,000 mails take in the database, sealed against plaintext, each on a
 *   node of its own, counted with SQLite's dbstat once the node is stopped: the pages of
 *   `messages` and of `mail_plaintext` (what the node opened, kept once per mail), and every page.
 *   Each sealed send writes, encrypts (SQLCipher) and syncs those pages.
 * - e2ee-seal-parts: where a sealed send's time goes, in this process with no node, each part
 *   taking turns with the others (p50): the whole seal as the node calls it (sealEnvelope: both
 *   key assertions checked again through the cache of verified signatures, which knows the
 *   frozen assertions the node hands out by the object; two HPKE key wraps, AES-GCM, the Ed25519
 *   signature), and its parts: one key wrap, an X25519
 *   key pair, an X25519 agreement, an Ed25519 signature and verification, a key assertion verified
 *   in full and through the cache of verified signatures (server/crypto/e2ee/verified-key-assertions.ts).
 *   A sealed send also verifies the sender's and the recipient's assertions before sealing
 *   (IdentityEncryptionKeys.current, the first pass through that cache), and signs the mail as
 *   plaintext too, as every send does.
 *
 * Environment (defaults in brackets):
 * - BENCH_E2EE_SENDS [4000]: timed sends on each side of the throughput measure;
 * - BENCH_E2EE_ROUNDS [10]: the rounds they are split into;
 * - BENCH_E2EE_LATENCY_SENDS [500]: timed sends on each side with one client;
 * - BENCH_E2EE_PARTS [5000]: timed calls of each part of a seal;
 * - BENCH_E2EE_INBOX [1000]: mails in each inbox, and on each side of the storage measure;
 * - BENCH_E2EE_READS [1000]: timed reads of each inbox at each page size;
 * - BENCH_E2EE_WAKE_SENDS [1000]: sends each way in the wake measure;
 * - BENCH_IDLE_STREAMS [200]: idle event streams open on each node during it;
 * - BENCH_E2EE_ONLY [all]: one measure, `throughput`, `inbox`, `storage`, `wake` or `parts`.
 */
import { randomBytes } from 'node:crypto';
import { DEFAULT_MAIL_PAGE, MAX_MAIL_PAGE } from '../contract/core/mail.ts';
import { didKeyFromPublicKey } from '../server/crypto/did-key.ts';
import { buildKeyAssertion, verifyKeyAssertion } from '../server/crypto/e2ee/key-assertion.ts';
import { sealKeyWrap } from '../server/crypto/e2ee/key-wrap.ts';
import { sealEnvelope } from '../server/crypto/e2ee/seal-envelope.ts';
import { VerifiedKeyAssertions } from '../server/crypto/e2ee/verified-key-assertions.ts';
import { agreementFromPrivateKey, ephemeralAgreement, generateX25519KeyPair } from '../server/crypto/e2ee/x25519.ts';
import { privateKeyFromSeed, rawPublicKey, signBytes, verifyBytes } from '../server/crypto/ed25519.ts';
import { openNodeDatabase } from '../test/support/database.ts';
import { genesisEntry, selfKey } from '../test/support/self-signer.ts';
import { withPair } from './federation.bench.ts';
import { startBenchNode, type BenchNode } from './fixtures.ts';
import { MailArrivals } from './mail-arrivals.ts';
import { report, summarize, timeInterleaved, type Timing } from './measure.ts';

const SENDS = Number(process.env.BENCH_E2EE_SENDS ?? 4000);
const ROUNDS = Number(process.env.BENCH_E2EE_ROUNDS ?? 10);
const LATENCY_SENDS = Number(process.env.BENCH_E2EE_LATENCY_SENDS ?? 500);
const PARTS = Number(process.env.BENCH_E2EE_PARTS ?? 5000);
const INBOX = Number(process.env.BENCH_E2EE_INBOX ?? 1000);
const READS = Number(process.env.BENCH_E2EE_READS ?? 1000);
const WAKE_SENDS = Number(process.env.BENCH_E2EE_WAKE_SENDS ?? 1000);
const IDLE_STREAMS = Number(process.env.BENCH_IDLE_STREAMS ?? 200);
const CLIENTS = 8;
const WAKE_WARMUP = 10;
const WAKE_TIMEOUT_MS = 30_000;
const TARGET_THROUGHPUT_RATIO = 0.8;
const TARGET_INBOX_P99_MS = 30;
const TARGET_WAKE_P99_MS = 50;
const BODY = 'x'.repeat(200);

const round = (x: number, places = 3): number => Math.round(x * 10 ** places) / 10 ** places;

interface Identity {
  agent_id: string;
  api_key: string;
  alias: string;
  address: string | null;
}

/** One request to the node; anything but a 2xx fails the run, so a refusal is never timed as a send. */
async function call<T>(url: string, method: 'GET' | 'POST' | 'PUT', path: string, token: string | null, body?: unknown): Promise<T> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { ...(token === null ? {} : { authorization: `Bearer ${token}` }), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/**
 * A self-custodial identity, as its client makes one: it registers its did:svc, then the project
 * makes the identity with the client's key. With `publishKey` the client also publishes an
 * encryption key, signed with its own key; without, it publishes none and mail to it is plaintext.
 */
async function selfCustodial(bench: BenchNode, name: string, publishKey: boolean): Promise<Identity> {
  const key = selfKey();
  const head = genesisEntry(key);
  await call(bench.url, 'POST', '/v1/did', null, { ...head.payload, proof: head.signature });
  const identity = await call<Identity>(bench.url, 'POST', '/v1/workspaces/init', bench.projectKey, {
    lifetime: 'persistent',
    name,
    custody: 'self',
    did: key.didKey,
    public_key: key.publicKey.toString('base64'),
  });
  if (publishKey) {
    const assertion = buildKeyAssertion(
      { identityDid: key.didKey, identityStableId: key.didSvc, custody: 'self', publicKey: generateX25519KeyPair().publicKey, now: Date.now() - 60_000 },
      (bytes) => Buffer.from(key.sign(bytes.toString('utf8')), 'base64'),
    );
    await call(bench.url, 'PUT', '/v1/agents/me/encryption-key', identity.api_key, assertion);
  }
  return identity;
}

interface InboxItem {
  message_id: string;
  end_to_end: boolean;
  content_mode: string;
  subject: string;
  body: string;
}
interface InboxPage {
  messages: InboxItem[];
  has_more: boolean;
  next_before: string | null;
}

/** Every mail in the identity's inbox, page by page. */
async function wholeInbox(url: string, reader: Identity): Promise<InboxItem[]> {
  const items: InboxItem[] = [];
  for (let before: string | null = null; ;) {
    const query: string = `/v1/messages/inbox?limit=${MAX_MAIL_PAGE}${before === null ? '' : `&before=${before}`}`;
    const page: InboxPage = await call<InboxPage>(url, 'GET', query, reader.api_key);
    items.push(...page.messages);
    if (!page.has_more) return items;
    before = page.next_before;
  }
}

/** How many of `messageIds` the reader's inbox holds, and how many of those arrived end-to-end encrypted. */
async function encryptedCount(url: string, reader: Identity, messageIds: Iterable<string>): Promise<{ found: number; end_to_end: number }> {
  const byId = new Map((await wholeInbox(url, reader)).map((item) => [item.message_id, item]));
  let found = 0;
  let endToEnd = 0;
  for (const id of messageIds) {
    const item = byId.get(id);
    if (item === undefined) continue;
    found++;
    if (item.end_to_end) endToEnd++;
  }
  return { found, end_to_end: endToEnd };
}

/** Milliseconds for `count` sends driven by `CLIENTS` concurrent loops, sender by sender in turn. */
async function sendAll(bench: BenchNode, senders: Identity[], count: number, body: (i: number) => unknown): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      for (let i = next++; i < count; i = next++) await call(bench.url, 'POST', '/v1/messages', senders[i % senders.length]!.api_key, body(i));
    }),
  );
  return performance.now() - started;
}

async function throughput(bench: BenchNode): Promise<void> {
  const senders: Identity[] = [];
  for (let i = 0; i < CLIENTS; i++) senders.push(await bench.identity(`tp-sender-${i}`));
  const sealedTo = await bench.identity('tp-custodial');
  const plaintextTo = await selfCustodial(bench, 'tp-keyless', false);
  const bodies = {
    sealed: (i: number) => ({ to_alias: sealedTo.alias, subject: `s${i}`, body: BODY }),
    plaintext: (i: number) => ({ to_alias: plaintextTo.alias, subject: `p${i}`, body: BODY, content_mode: 'legacy_plaintext_v1' }),
  };
  // Warm both paths (JIT, statement cache, the page cache) before anything is timed.
  for (const side of ['sealed', 'plaintext'] as const) await sendAll(bench, senders, 200, bodies[side]);
  const perRound = Math.max(CLIENTS, Math.round(SENDS / ROUNDS));
  const ms = { sealed: 0, plaintext: 0 };
  const roundRatios: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? (['sealed', 'plaintext'] as const) : (['plaintext', 'sealed'] as const);
    const took = { sealed: 0, plaintext: 0 };
    for (const side of order) took[side] = await sendAll(bench, senders, perRound, bodies[side]);
    ms.sealed += took.sealed;
    ms.plaintext += took.plaintext;
    // Sealed sends/s over plaintext sends/s: the inverse of their times.
    roundRatios.push(took.plaintext / took.sealed);
  }
  // What was timed is what was claimed: the sealed side arrived encrypted, the plaintext side not.
  const [sealedItem] = (await call<InboxPage>(bench.url, 'GET', '/v1/messages/inbox?limit=1', sealedTo.api_key)).messages;
  const [plainItem] = (await call<InboxPage>(bench.url, 'GET', '/v1/messages/inbox?limit=1', plaintextTo.api_key)).messages;
  if (sealedItem?.end_to_end !== true || plainItem?.end_to_end !== false) {
    throw new Error(`expected sealed and plaintext mail, read ${JSON.stringify({ sealed: sealedItem?.content_mode, plaintext: plainItem?.content_mode })}`);
  }
  // One client, the two sides taking turns send by send: what sealing adds to a send, without queueing.
  let one = 0;
  const oneClient = await timeInterleaved(LATENCY_SENDS, {
    sealed: () => call(bench.url, 'POST', '/v1/messages', senders[0]!.api_key, bodies.sealed(one++)),
    plaintext: () => call(bench.url, 'POST', '/v1/messages', senders[0]!.api_key, bodies.plaintext(one++)),
  });
  const sends = perRound * ROUNDS;
  const rps = (total: number): number => Math.round(sends / (total / 1000));
  const ratio = ms.plaintext / ms.sealed;
  const sorted = [...roundRatios].sort((a, b) => a - b);
  report('e2ee-mail-throughput', {
    clients: CLIENTS,
    sends_per_side: sends,
    rounds: ROUNDS,
    sealed_rps: rps(ms.sealed),
    plaintext_rps: rps(ms.plaintext),
    ratio: round(ratio),
    round_ratios: {
      min: round(sorted[0]!),
      median: round(sorted[Math.floor(ROUNDS / 2)]!),
      max: round(sorted.at(-1)!),
      in_order: roundRatios.map((x) => round(x)),
    },
    target_ratio: TARGET_THROUGHPUT_RATIO,
    target_met: ratio >= TARGET_THROUGHPUT_RATIO,
    one_client: { ...oneClient, sealed_adds_p50_ms: round(oneClient.sealed.p50_ms - oneClient.plaintext.p50_ms) },
  });
}

async function inboxPage(bench: BenchNode): Promise<void> {
  const sender = await bench.identity('inbox-sender');
  const opened = await bench.identity('inbox-custodial');
  const enveloped = await selfCustodial(bench, 'inbox-own-key', true);
  const plaintext = await selfCustodial(bench, 'inbox-keyless', false);
  const seedStarted = performance.now();
  const seed = (to: Identity, extra: Record<string, unknown> = {}) =>
    sendAll(bench, [sender], INBOX, (i) => ({ to_alias: to.alias, subject: `Quarterly report ${i}`, body: BODY, ...extra }));
  await seed(opened);
  await seed(enveloped);
  await seed(plaintext, { content_mode: 'legacy_plaintext_v1' });
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  // Each inbox holds what it should: the opened one its plaintext, the own-key one envelopes only.
  const check = async (reader: Identity, endToEnd: boolean, contentMode: string, readable: boolean) => {
    const items = await wholeInbox(bench.url, reader);
    const wrong = items.filter((item) => item.end_to_end !== endToEnd || item.content_mode !== contentMode || (item.subject !== '') !== readable);
    if (items.length !== INBOX || wrong.length > 0) throw new Error(`${reader.alias}: ${items.length} mails, ${wrong.length} not ${contentMode}`);
  };
  await check(opened, true, 'server_readable_hosted', true);
  await check(enveloped, true, 'encrypted_v2', false);
  await check(plaintext, false, 'legacy_plaintext_v1', true);

  const read = (reader: Identity, limit: number) => () =>
    fetch(`${bench.url}/v1/messages/inbox?limit=${limit}`, { headers: { authorization: `Bearer ${reader.api_key}` } }).then((r) => r.arrayBuffer());
  const pages: Record<string, { opened: Timing; plaintext: Timing; envelopes: Timing; ratio_p99: number; ratio_p50: number }> = {};
  for (const limit of [DEFAULT_MAIL_PAGE, MAX_MAIL_PAGE]) {
    const times = await timeInterleaved(READS, { opened: read(opened, limit), plaintext: read(plaintext, limit), envelopes: read(enveloped, limit) });
    pages[`limit_${limit}`] = {
      ...times,
      ratio_p99: round(times.opened.p99_ms / times.plaintext.p99_ms, 2),
      ratio_p50: round(times.opened.p50_ms / times.plaintext.p50_ms, 2),
    };
  }
  const worstP99 = Math.max(...Object.values(pages).map((page) => page.opened.p99_ms));
  report('e2ee-inbox-page', {
    inbox_mails: INBOX,
    reads: READS,
    ...pages,
    seed_seconds: Math.round(seedSeconds),
    target_opened_p99_ms: TARGET_INBOX_P99_MS,
    target_met: worstP99 <= TARGET_INBOX_P99_MS,
  });
}

async function crossNodeWake({ a, b }: { a: BenchNode; b: BenchNode }): Promise<void> {
  const alice = await a.identity('alice');
  const remote = await b.identity('bob');
  const local = await a.identity('carol');
  const idle: MailArrivals[] = [];
  for (const node of [a, b]) {
    const streams: Identity[] = [];
    for (let i = 0; i < IDLE_STREAMS; i++) streams.push(await node.identity(`idle-${i}`));
    idle.push(await MailArrivals.open(node.url, streams));
  }
  const arrivals = { cross_node: await MailArrivals.open(b.url, [remote]), local: await MailArrivals.open(a.url, [local]) };
  const to = { cross_node: remote, local };
  const samples = { cross_node: [] as number[], local: [] as number[] };
  const sent = { cross_node: [] as string[], local: [] as string[] };
  try {
    // Taking turns send by send, so load from outside the run falls on both alike.
    for (let i = 0; i < WAKE_WARMUP + WAKE_SENDS; i++) {
      for (const side of ['cross_node', 'local'] as const) {
        const { message_id: id } = await call<{ message_id: string }>(a.url, 'POST', '/v1/messages', alice.api_key, {
          to_address: to[side].address,
          subject: `n${i}`,
          body: 'wake',
        });
        const returned = performance.now();
        // A frame can beat the HTTP response back to the client: that is zero latency, not negative.
        const latency = Math.max(0, (await arrivals[side].waitFor(id, WAKE_TIMEOUT_MS)) - returned);
        if (i >= WAKE_WARMUP) {
          samples[side].push(latency);
          sent[side].push(id);
        }
      }
    }
  } finally {
    for (const open of [...idle, arrivals.cross_node, arrivals.local]) await open.close();
  }
  const encrypted = { cross_node: await encryptedCount(b.url, remote, sent.cross_node), local: await encryptedCount(a.url, local, sent.local) };
  const timing = (s: number[]) => ({ ...summarize(s), max_ms: round(Math.max(...s)) });
  const crossNode = timing(samples.cross_node);
  report('e2ee-cross-node-wake', {
    sends: WAKE_SENDS,
    idle_streams_per_node: IDLE_STREAMS,
    // Whether what was measured is the encrypted path: every cross-node mail arrived end-to-end encrypted.
    cross_node_end_to_end: encrypted.cross_node.end_to_end === WAKE_SENDS,
    end_to_end_of_sends: { cross_node: encrypted.cross_node.end_to_end, local: encrypted.local.end_to_end },
    cross_node: crossNode,
    local: timing(samples.local),
    target_cross_node_p99_ms: TARGET_WAKE_P99_MS,
    target_met: crossNode.p99_ms <= TARGET_WAKE_P99_MS,
  });
}

/** Pages of the mail tables after `INBOX` mails, sealed or plaintext, on a fresh node. */
async function storedPages(side: 'sealed' | 'plaintext'): Promise<{ messages: number; mail_plaintext: number; database: number; page_size: number }> {
  const bench = await startBenchNode();
  try {
    const sender = await bench.identity('store-sender');
    const to = side === 'sealed' ? await bench.identity('store-custodial') : await selfCustodial(bench, 'store-keyless', false);
    const extra = side === 'plaintext' ? { content_mode: 'legacy_plaintext_v1' } : {};
    await sendAll(bench, [sender], INBOX, (i) => ({ to_alias: to.alias, subject: `Quarterly report ${i}`, body: BODY, ...extra }));
    await bench.node.close();
    const { db, close } = await openNodeDatabase(bench.dataDir);
    try {
      const pages = new Map(
        (
          db.prepare(`SELECT name, count(*) AS pages FROM dbstat WHERE name IN ('messages', 'mail_plaintext') GROUP BY name`).all() as {
            name: string;
            pages: number;
          }[]
        ).map((row) => [row.name, row.pages]),
      );
      return {
        messages: pages.get('messages') ?? 0,
        mail_plaintext: pages.get('mail_plaintext') ?? 0,
        database: db.pragma('page_count', { simple: true }) as number,
        page_size: db.pragma('page_size', { simple: true }) as number,
      };
    } finally {
      close();
    }
  } finally {
    await bench.stop();
  }
}

async function storage(): Promise<void> {
  const sealed = await storedPages('sealed');
  const plaintext = await storedPages('plaintext');
  const perMail = (pages: { messages: number; mail_plaintext: number; page_size: number }) =>
    Math.round(((pages.messages + pages.mail_plaintext) * pages.page_size) / INBOX);
  report('e2ee-mail-storage', {
    mails: INBOX,
    pages: { sealed, plaintext },
    mail_tables_bytes_per_mail: { sealed: perMail(sealed), plaintext: perMail(plaintext) },
  });
}

/** A party to a sealed mail as the node knows it: its signing key (custody's, here in memory), its did and its published key. */
function sealParty(name: string) {
  const signing = privateKeyFromSeed(generateX25519KeyPair().privateKey);
  const did = didKeyFromPublicKey(rawPublicKey(signing));
  const stableId = `did:svc:zbench${name}`;
  const encryption = generateX25519KeyPair();
  const assertion = buildKeyAssertion(
    { identityDid: did, identityStableId: stableId, custody: 'self', publicKey: encryption.publicKey, now: Date.now() - 60_000 },
    (bytes) => signBytes(signing, bytes),
  );
  return { signing, party: { address: `bench.test/${name}`, did, stableId, encryptionKey: assertion } };
}

async function sealParts(): Promise<void> {
  const sender = sealParty('ann');
  const recipient = sealParty('bob');
  const verified = new VerifiedKeyAssertions();
  const expect = () => ({ currentDidKey: recipient.party.did, stableId: recipient.party.stableId, now: Date.now() });
  const recipientKey = verifyKeyAssertion(recipient.party.encryptionKey, expect()).publicKey;
  const binding = {
    messageId: 'bench',
    conversationId: 'bench',
    sender: { did: sender.party.did, stable_id: sender.party.stableId, encryption_key_id: sender.party.encryptionKey.encryption_key_id },
    recipient: { did: recipient.party.did, stable_id: recipient.party.stableId, encryption_key_id: recipient.party.encryptionKey.encryption_key_id },
    purpose: 'delivery' as const,
  };
  const contentKey = randomBytes(32);
  const agreement = agreementFromPrivateKey(generateX25519KeyPair().privateKey);
  // As the node hands them out (IdentityEncryptionKeys.current): frozen, and verified once before the seal.
  const parties = {
    sender: { ...sender.party, encryptionKey: Object.freeze({ ...sender.party.encryptionKey }) },
    recipient: { ...recipient.party, encryptionKey: Object.freeze({ ...recipient.party.encryptionKey }) },
  };
  for (const party of Object.values(parties)) verified.verify(party.encryptionKey, { currentDidKey: party.did, stableId: party.stableId, now: Date.now() });
  const signed = Buffer.from(JSON.stringify(binding).repeat(4));
  const signature = signBytes(sender.signing, signed);
  const senderPublic = rawPublicKey(sender.signing);
  let n = 0;
  const times = await timeInterleaved(PARTS, {
    seal: async () =>
      sealEnvelope(
        {
          kind: 'mail',
          sender: parties.sender,
          recipients: [parties.recipient],
          subject: 'Quarterly report',
          body: BODY,
          messageId: `m${n++}`,
          conversationId: 'thread',
          createdAt: Date.now(),
        },
        { did: parties.sender.did, sign: (bytes) => signBytes(sender.signing, bytes) },
        (assertion, expect) => verified.verify(assertion, expect),
      ),
    key_wrap: async () => sealKeyWrap(contentKey, binding, recipientKey),
    x25519_key_pair: async () => ephemeralAgreement(),
    x25519_agreement: async () => agreement.agree(recipientKey),
    ed25519_sign: async () => signBytes(sender.signing, signed),
    ed25519_verify: async () => verifyBytes(senderPublic, signed, signature),
    assertion_verified: async () => verifyKeyAssertion(recipient.party.encryptionKey, expect()),
    assertion_cached: async () => verified.verify(recipient.party.encryptionKey, expect()),
  });
  const p50 = Object.fromEntries(Object.entries(times).map(([part, timing]) => [part, timing.p50_ms]));
  report('e2ee-seal-parts', { calls: PARTS, p50_ms: p50, timings: times });
}

/** Each on a node (or pair) of its own, so what one leaves behind cannot slow the next. */
const MEASURES: Record<string, () => Promise<void>> = {
  throughput: () => onFreshNode(throughput),
  inbox: () => onFreshNode(inboxPage),
  storage,
  wake: () => withPair(crossNodeWake),
  parts: sealParts,
};

async function onFreshNode(measure: (bench: BenchNode) => Promise<void>): Promise<void> {
  const node = await startBenchNode();
  try {
    await measure(node);
  } finally {
    await node.stop();
  }
}

export async function run(): Promise<void> {
  const only = process.env.BENCH_E2EE_ONLY;
  if (only !== undefined && !(only in MEASURES)) throw new Error(`BENCH_E2EE_ONLY is one of ${Object.keys(MEASURES).join(', ')}`);
  for (const [name, measure] of Object.entries(MEASURES)) if (only === undefined || only === name) await measure();
}
