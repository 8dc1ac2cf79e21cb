/**
 * Search benchmarks (`BENCH_ONLY=search`), on one node holding the worst case: a single
 * identity's mailbox of 1,000,000 messages, 100,000 chat messages in the chats it is in, and one
 * team's 10,000 documents. The text is generated, the same every run: a vocabulary drawn with a
 * Zipf distribution (a few words in nearly every message, a long tail) and planted words of known
 * frequency: a common word (`report`, ~30% of messages), rare words (each in exactly 10 messages),
 * words sharing the prefix `contr`, a phrase, and accented words.
 * - seeding: rows copied straight into the database from real signed rows (seed.ts's way), the
 *   triggers noting mail and chat and the indexer moving each batch into the index (as a node's
 *   would, server/search/indexer.ts); documents through the documents service,
 *   which indexes each version in the transaction that writes it. The index's share of a bulk
 *   insert is measured on a sample, the same rows with and without the mail trigger;
 * - query latency through HTTP (`GET /v1/search` with the identity's Bearer key, one owner query,
 *   one team-signed documents query), p50/p99, every query taking turns request by request; target
 *   p99 ≤ 50 ms. The identity's queries are timed again at the service (no HTTP) and as the mail
 *   index's SQL alone, so the report says where the time goes;
 * - write path: mail sends/s through HTTP (8 concurrent clients, as messaging.bench.ts) on the
 *   node (its indexer running) against a copy of it whose mail trigger was dropped (nothing
 *   noted, nothing indexed), the two taking turns in rounds;
 *   target ratio ≥ 0.9;
 * - index size: dbstat's pages of each index's shadow tables against the whole database;
 * - index build: the backfill (server/search/backfill.ts) over the whole mailbox from scratch, the
 *   index emptied and its cursor reset as migration 0029 would find them.
 */
import { randomUUID } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SearchQuery, SearchResults } from '../contract/core/search.ts';
import { buildTeamHeaders, type TeamHeaders } from '../server/auth/team-envelope-client.ts';
import { systemClock } from '../server/clock.ts';
import type { NodeContext } from '../server/context.ts';
import { privateKeyFromSeed, signBytes } from '../server/crypto/ed25519.ts';
import { AppEvents } from '../server/teams/app-events.ts';
import { EventBus } from '../server/events/bus.ts';
import { startNode, type RunningNode } from '../server/index.ts';
import { SearchBackfill } from '../server/search/backfill.ts';
import { SearchIndexer } from '../server/search/indexer.ts';
import { parseQuery } from '../server/search/query.ts';
import { agentScope, scopedMatch } from '../server/search/scope.ts';
import { identityScope } from '../server/search/scopes.ts';
import { PREFIX_WORDS, SearchService } from '../server/search/service.ts';
import { textColumns } from '../server/search/scoring.ts';
import { wordsStartingWith } from '../server/search/store/index-texts.ts';
import { mailCandidates } from '../server/search/store/mail.ts';
import type { Database } from '../server/store/database.ts';
import { DocsBilling } from '../server/surfaces/docs/billing/service.ts';
import { Documents } from '../server/surfaces/docs/documents/service.ts';
import { openNodeDatabase } from '../test/support/database.ts';
import { seeded } from '../test/support/seeded.ts';
import { testKey } from '../test/support/keys.ts';
import { startBenchNode, type BenchNode } from './fixtures.ts';
import { report, summarize, type Timing } from './measure.ts';

const MESSAGES = Number(process.env.BENCH_SEARCH_MESSAGES ?? 1_000_000);
const CHATS = Number(process.env.BENCH_SEARCH_CHATS ?? 100_000);
const DOCUMENTS = Number(process.env.BENCH_SEARCH_DOCUMENTS ?? 10_000);
// p99 of a few hundred samples is the 5th-worst one: 1,000 each, every query taking turns.
const QUERIES = Number(process.env.BENCH_SEARCH_QUERIES ?? 1000);
const SERVICE_QUERIES = Number(process.env.BENCH_SEARCH_SERVICE_QUERIES ?? Math.max(50, Math.round(QUERIES / 4)));
/** Seconds of timed runs after which a probe stops, once it has MIN_SAMPLES (a query of seconds). */
const PROBE_BUDGET_S = Number(process.env.BENCH_SEARCH_PROBE_SECONDS ?? 120);
const MIN_SAMPLES = 50;
/** Sends per node for the write path, in `ROUNDS` rounds that alternate the two nodes. */
const SENDS = Number(process.env.BENCH_SEARCH_SENDS ?? 4000);
const ROUNDS = Number(process.env.BENCH_SEARCH_ROUNDS ?? 10);
const CLIENTS = 8;
const SENDERS = 16;
/** Mail from the identity itself (its sent folder is searched too). */
const SENT_SHARE = 0.05;
/** The mailbox spans two years; ids grow with time, as a node writes them. */
const SPAN_MS = 730 * 86_400_000;
const BATCH = 50_000;
const TARGET_P99_MS = 50;
const TARGET_WRITE_RATIO = 0.9;

// ------------------------------------------------------------------------------ the corpus

/** The most frequent ranks: English function words, as in real mail. */
const STOP_WORDS =
  'the to and of a in for is on that with we this it be as are at by will from please have our you or an can not all your has was if but they new more next team'.split(
    ' ',
  );
/** The rest of the vocabulary is made of these (no c, j, q, u, w, x, y: no planted word can come out). */
const SYLLABLES =
  'ba be bi bo da de di do fa fe fi ga ge go ka ke ki ko la le li lo ma me mi mo na ne ni no pa pe pi po ra re ri ro sa se si so ta te ti to va ve vi vo za zo ran len mor tis dal ven sor kel bar nim est ord'.split(
    ' ',
  );
const VOCABULARY = 30_000;
const ZIPF_EXPONENT = 1.0;

/** Planted words: each in about this share of items (mail, chat, documents). */
const COMMON = 'report';
const COMMON_SHARE = 0.3;
/** `contr*` matches every one of these. */
const PREFIX = 'contr';
const PREFIX_FAMILY: Array<[string, number]> = [
  ['contract', 0.08],
  ['contractor', 0.03],
  ['contracts', 0.02],
  ['control', 0.04],
  ['controller', 0.01],
  ['contribute', 0.01],
  ['contrary', 0.005],
];
const PHRASE = 'quarterly budget review';
const PHRASE_SHARE = 0.01;
/** The phrase's words also appear on their own, so the phrase is not just their co-occurrence. */
const PHRASE_WORDS: Array<[string, number]> = [
  ['quarterly', 0.04],
  ['budget', 0.05],
  ['review', 0.07],
];
const ACCENTED: Array<[string, number]> = [
  ['café', 0.003],
  ['résumé', 0.002],
  ['Zürich', 0.002],
  ['naïve', 0.001],
];
/** Rare words: each in exactly RARE_COUNT messages, spread over the two years. */
const RARE_WORDS = 50;
const RARE_COUNT = 10;
const RARE_SYLLABLES = ['xa', 'xo', 'jy', 'qe', 'zux', 'wex', 'jal', 'quo'];
const rareWord = (k: number): string => `${RARE_SYLLABLES[k % 8]}${RARE_SYLLABLES[(k >> 3) % 8]}rix`;

/** Vose's alias method: a Zipf draw in O(1), so a million messages' words take seconds. */
class Zipf {
  readonly #prob: Float64Array;
  readonly #alias: Int32Array;

  constructor(n: number, exponent: number) {
    const weights = Array.from({ length: n }, (_, r) => 1 / (r + 1) ** exponent);
    const total = weights.reduce((a, b) => a + b, 0);
    const scaled = weights.map((w) => (w * n) / total);
    this.#prob = new Float64Array(n);
    this.#alias = new Int32Array(n);
    const small: number[] = [];
    const large: number[] = [];
    scaled.forEach((p, i) => (p < 1 ? small : large).push(i));
    while (small.length > 0 && large.length > 0) {
      const s = small.pop()!;
      const l = large.pop()!;
      this.#prob[s] = scaled[s]!;
      this.#alias[s] = l;
      scaled[l] = scaled[l]! + scaled[s]! - 1;
      (scaled[l]! < 1 ? small : large).push(l);
    }
    for (const i of [...small, ...large]) this.#prob[i] = 1;
  }

  draw(random: () => number): number {
    const i = Math.floor(random() * this.#prob.length);
    return random() < this.#prob[i]! ? i : this.#alias[i]!;
  }
}

interface Planted {
  /** Items holding each planted word (the phrase counted as one). */
  counts: Map<string, number>;
}

class TextMaker {
  readonly #random: () => number;
  readonly #words: string[];
  readonly #zipf: Zipf;
  readonly planted: Planted = { counts: new Map() };

  constructor(seed: number) {
    this.#random = seeded(seed);
    const reserved = new Set([COMMON, ...PREFIX_FAMILY.map(([w]) => w), ...PHRASE_WORDS.map(([w]) => w), ...ACCENTED.map(([w]) => w.toLowerCase())]);
    for (let k = 0; k < RARE_WORDS; k++) reserved.add(rareWord(k));
    const words = [...STOP_WORDS];
    const seen = new Set(words);
    const vocabularyRandom = seeded(7);
    while (words.length < VOCABULARY) {
      const syllables = 1 + Math.floor(vocabularyRandom() * 3) + (vocabularyRandom() < 0.3 ? 1 : 0);
      let word = '';
      for (let i = 0; i < syllables; i++) word += SYLLABLES[Math.floor(vocabularyRandom() * SYLLABLES.length)];
      if (word.length < 3 || seen.has(word) || reserved.has(word) || word.startsWith('co')) continue;
      seen.add(word);
      words.push(word);
    }
    this.#words = words;
    this.#zipf = new Zipf(VOCABULARY, ZIPF_EXPONENT);
  }

  chance(p: number): boolean {
    return this.#random() < p;
  }

  between(min: number, max: number): number {
    return min + Math.floor(this.#random() * (max - min + 1));
  }

  /** `n` words from the vocabulary; `content` skips the function words (titles, subjects). */
  words(n: number, content = false): string[] {
    const out: string[] = [];
    while (out.length < n) {
      const rank = this.#zipf.draw(this.#random);
      if (!content || rank >= STOP_WORDS.length) out.push(this.#words[rank]!);
    }
    return out;
  }

  #insert(words: string[], planted: string): void {
    words.splice(Math.floor(this.#random() * (words.length + 1)), 0, planted);
  }

  #count(word: string): void {
    this.planted.counts.set(word, (this.planted.counts.get(word) ?? 0) + 1);
  }

  /** Plants each word at its share into `body` (the common word sometimes into `title` instead), and `extra` always. */
  plant(title: string[], body: string[], extra: readonly string[] = []): void {
    if (this.chance(COMMON_SHARE)) {
      this.#insert(this.chance(0.2) ? title : body, COMMON);
      this.#count(COMMON);
    }
    for (const [word, share] of [...PREFIX_FAMILY, ...PHRASE_WORDS, ...ACCENTED]) {
      if (!this.chance(share)) continue;
      this.#insert(body, word);
      this.#count(word);
    }
    if (this.chance(PHRASE_SHARE)) {
      this.#insert(body, PHRASE);
      this.#count(PHRASE);
    }
    for (const word of extra) {
      this.#insert(body, word);
      this.#count(word);
    }
    if (body.some((w) => w.startsWith(PREFIX))) this.#count(`${PREFIX}*`);
  }

  /** Words as sentences: capitalised, a full stop every 6 to 14 words. */
  sentences(words: readonly string[]): string {
    let out = '';
    let left = 0;
    for (const word of words) {
      if (left === 0) {
        if (out !== '') out += '. ';
        out += word.charAt(0).toUpperCase() + word.slice(1);
        left = this.between(6, 14);
      } else out += ` ${word}`;
      left--;
    }
    return `${out}.`;
  }

  /** A mail: a short subject, a body of 15 to about 165 words (most short), planted words. */
  mail(extra: readonly string[]): { subject: string; body: string } {
    const subject = this.words(this.between(2, 7), true);
    const body = this.words(15 + Math.floor(this.#random() * this.#random() * 150));
    this.plant(subject, body, extra);
    return { subject: subject.join(' '), body: this.sentences(body) };
  }

  /** A chat line: 3 to 30 words. */
  chat(): string {
    const body = this.words(this.between(3, 30));
    this.plant([], body);
    return this.sentences(body);
  }

  /** A Markdown document of 150 to 800 words under a 2-to-5-word title. */
  document(): { title: string; body: string } {
    const title = this.words(this.between(2, 5), true);
    const words = this.words(this.between(150, 800));
    this.plant(title, words);
    const paragraphs: string[] = [];
    for (let at = 0; at < words.length;) {
      const n = this.between(40, 120);
      if (paragraphs.length > 0 && this.chance(0.4)) paragraphs.push(`## ${this.words(this.between(2, 4), true).join(' ')}`);
      paragraphs.push(this.sentences(words.slice(at, at + n)));
      at += n;
    }
    return { title: title.join(' '), body: `# ${title.join(' ')}\n\n${paragraphs.join('\n\n')}\n` };
  }
}

/** Which messages hold which rare words: RARE_COUNT each, spread evenly over the mailbox. */
function rarePlacement(count: number): Map<number, string[]> {
  const placed = new Map<number, string[]>();
  for (let k = 0; k < RARE_WORDS; k++) {
    for (let j = 0; j < RARE_COUNT; j++) {
      const at = Math.min(count - 1, Math.floor(((j + (k + 1) / (RARE_WORDS + 1)) / RARE_COUNT) * count));
      placed.set(at, [...(placed.get(at) ?? []), rareWord(k)]);
    }
  }
  return placed;
}

// ------------------------------------------------------------------------------ the node

interface Identity {
  agent_id: string;
  api_key: string;
  alias: string;
}

interface DocsMember {
  teamId: string;
  certificateId: string;
  didKey: string;
  sign(path: string): TeamHeaders;
}

interface Fixture {
  bench: BenchNode;
  owner: Identity;
  senders: Identity[];
  /** Template message ids: one from each sender to the owner, then one from the owner. */
  mailTemplates: string[];
  /** Per chat session: a message from the owner and one from the other side. */
  chatTemplates: Array<{ session: string; mine: string; theirs: string }>;
  member: DocsMember;
}

async function ownerPost<T>(bench: BenchNode, path: string, body: unknown): Promise<T> {
  return bench.post<T>(path, bench.node.ownerToken, body);
}

async function docsMember(bench: BenchNode): Promise<DocsMember> {
  const { team_id: teamId } = await ownerPost<{ team_id: string }>(bench, '/v1/node/teams', { name: 'search-docs', domain: 'bench.test' });
  const key = testKey();
  // No scopes named: a member's defaults (docs:read among them).
  const issued = await ownerPost<{ certificate: { certificate_id: string }; certificate_b64: string }>(
    bench,
    `/v1/node/teams/${encodeURIComponent(teamId)}/members`,
    {
      did_key: key.didKey,
      alias: 'search-docs-member',
    },
  );
  const privateKey = privateKeyFromSeed(key.seed);
  return {
    teamId,
    certificateId: issued.certificate.certificate_id,
    didKey: key.didKey,
    sign: (path) =>
      buildTeamHeaders({
        method: 'GET',
        path,
        aud: bench.url,
        teamId,
        certificateB64: issued.certificate_b64,
        didKey: key.didKey,
        sign: (b) => signBytes(privateKey, b),
      }),
  };
}

async function setUp(bench: BenchNode): Promise<Fixture> {
  const owner = await bench.identity('searcher');
  const senders: Identity[] = [];
  for (let i = 0; i < SENDERS; i++) senders.push(await bench.identity(`sender-${String(i).padStart(2, '0')}`));
  const mailTemplates: string[] = [];
  for (const sender of senders)
    mailTemplates.push(
      (await bench.post<{ message_id: string }>('/v1/messages', sender.api_key, { to_alias: owner.alias, subject: 'seed', body: 'seed' })).message_id,
    );
  mailTemplates.push(
    (await bench.post<{ message_id: string }>('/v1/messages', owner.api_key, { to_alias: senders[0]!.alias, subject: 'seed', body: 'seed' })).message_id,
  );
  // A two-party chat with each sender, and four group chats.
  const groups = [...senders.map((s) => [s]), ...Array.from({ length: 4 }, (_, g) => [senders[2 * g]!, senders[2 * g + 1]!])];
  const chatTemplates: Fixture['chatTemplates'] = [];
  for (const group of groups) {
    const started = await bench.post<{ session_id: string; message_id: string }>('/v1/chat/sessions', owner.api_key, {
      to_aliases: group.map((s) => s.alias),
      message: 'seed',
    });
    const reply = await bench.post<{ message_id: string }>(`/v1/chat/sessions/${started.session_id}/messages`, group[0]!.api_key, { body: 'seed' });
    chatTemplates.push({ session: started.session_id, mine: started.message_id, theirs: reply.message_id });
  }
  return { bench, owner, senders, mailTemplates, chatTemplates, member: await docsMember(bench) };
}

/** An INSERT of `columns` by name, so a copied row can go in with some values replaced. */
function insertInto(db: Database, table: string, columns: string[]) {
  return db.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`);
}

const seconds = (ms: number): number => Math.round(ms / 100) / 10;

/** The mail rows of the mailbox, in time order: mostly from the senders, SENT_SHARE from the owner. */
function* mailRows(text: TextMaker, templates: Array<Record<string, unknown>>, count: number, startMs: number): Generator<Record<string, unknown>, void> {
  const rare = rarePlacement(count);
  const random = seeded(2);
  const sent = templates.at(-1)!;
  for (let i = 0; i < count; i++) {
    const template = random() < SENT_SHARE ? sent : templates[Math.floor(random() * (templates.length - 1))]!;
    const at = new Date(startMs + Math.floor((i * SPAN_MS) / count)).toISOString();
    const { subject, body } = text.mail(rare.get(i) ?? []);
    yield { ...template, message_id: randomUUID(), subject, body, created_at: at, read_at: i % 3 === 0 ? at : null };
  }
}

/**
 * Mail, chat and documents written with the node stopped. Mail and chat are copies of the rows the
 * API wrote, new text in each, inserted in batches: the triggers index them as they go.
 */
async function seed(f: Fixture) {
  await f.bench.node.close();
  const { db, close } = await openNodeDatabase(f.bench.dataDir);
  try {
    // Random message_ids land all over the unique index: a page cache large enough (seed.ts).
    db.pragma('cache_size=-262144');
    const template = (table: string, id: string) => db.prepare(`SELECT * FROM ${table} WHERE message_id = ?`).get(id) as Record<string, unknown>;
    const mailTemplates = f.mailTemplates.map((id) => template('messages', id));
    const insertMail = insertInto(
      db,
      'messages',
      Object.keys(mailTemplates[0]!).filter((c) => c !== 'id'),
    );
    const startMs = Date.now() - SPAN_MS - 86_400_000;

    const mailStarted = performance.now();
    const mailText = new TextMaker(1);
    const rows = mailRows(mailText, mailTemplates, MESSAGES, startMs);
    const mailBatch = db.transaction((n: number) => {
      for (let i = 0; i < n; i++) insertMail.run(rows.next().value as Record<string, unknown>);
    });
    // The triggers note each row; the indexer moves them into the index as the node's would.
    const indexer = new SearchIndexer(db);
    for (let done = 0; done < MESSAGES; done += BATCH) {
      mailBatch(Math.min(BATCH, MESSAGES - done));
      indexer.runToEnd();
    }
    const mailMs = performance.now() - mailStarted;

    const sample = insertCostSample(db, mailTemplates, startMs);

    const chatStarted = performance.now();
    const chatTemplates = f.chatTemplates.map((t) => ({ mine: template('chat_messages', t.mine), theirs: template('chat_messages', t.theirs) }));
    const insertChat = insertInto(
      db,
      'chat_messages',
      Object.keys(chatTemplates[0]!.mine).filter((c) => c !== 'id'),
    );
    const chatText = new TextMaker(3);
    const random = seeded(4);
    const chatBatch = db.transaction((from: number, n: number) => {
      for (let i = from; i < from + n; i++) {
        const session = chatTemplates[Math.floor(random() * chatTemplates.length)]!;
        const at = new Date(startMs + Math.floor((i * SPAN_MS) / CHATS)).toISOString();
        insertChat.run({
          ...(random() < 0.5 ? session.mine : session.theirs),
          message_id: randomUUID(),
          body: chatText.chat(),
          timestamp: at.replace(/\.\d{3}Z$/, 'Z'),
          created_at: at,
        });
      }
    });
    for (let done = 0; done < CHATS; done += BATCH) {
      chatBatch(done, Math.min(BATCH, CHATS - done));
      indexer.runToEnd();
    }
    const chatMs = performance.now() - chatStarted;

    // The rows the API wrote come first by id: dated before the copies, so ids grow with time throughout.
    const before = new Date(startMs - 86_400_000).toISOString();
    db.prepare(`UPDATE messages SET created_at = ? WHERE message_id IN (SELECT value FROM json_each(?))`).run(before, JSON.stringify(f.mailTemplates));
    db.prepare(`UPDATE chat_messages SET created_at = ?, timestamp = ? WHERE message_id IN (SELECT value FROM json_each(?))`).run(
      before,
      before.replace(/\.\d{3}Z$/, 'Z'),
      JSON.stringify(f.chatTemplates.flatMap((t) => [t.mine, t.theirs])),
    );

    const docsStarted = performance.now();
    const docsPlanted = seedDocuments(db, f.member);
    const docsMs = performance.now() - docsStarted;

    const size = indexSize(db);
    return {
      seeding: {
        mail: { rows: MESSAGES, seconds: seconds(mailMs), rows_per_s: Math.round(MESSAGES / (mailMs / 1000)) },
        mail_insert_sample: sample,
        chat: { rows: CHATS, seconds: seconds(chatMs), rows_per_s: Math.round(CHATS / (chatMs / 1000)) },
        documents: {
          documents: DOCUMENTS,
          seconds: seconds(docsMs),
          per_s: Math.round(DOCUMENTS / (docsMs / 1000)),
          through: 'Documents.create (the service path, indexDocument in its transaction)',
        },
      },
      corpus: {
        mail_items_holding: Object.fromEntries(mailText.planted.counts),
        documents_holding: Object.fromEntries([...docsPlanted.counts].filter(([word]) => word === COMMON || word === PHRASE || word === `${PREFIX}*`)),
        vocabulary: VOCABULARY,
        zipf_exponent: ZIPF_EXPONENT,
        rare_words: RARE_WORDS,
        rare_word_messages: RARE_COUNT,
        senders: SENDERS,
        chat_sessions: f.chatTemplates.length,
      },
      size,
    };
  } finally {
    close();
  }
}

/**
 * The index's share of a bulk insert: the same SAMPLE rows inserted with the mail trigger (and
 * moved into the index by the indexer) and without it (dropped inside the transaction), each
 * rolled back, taking turns twice. The FTS5
 * flush at commit is not counted (its pending data is flushed whenever it passes 1 MB anyway).
 */
function insertCostSample(db: Database, templates: Array<Record<string, unknown>>, startMs: number) {
  const count = Math.min(50_000, Math.max(1000, Math.floor(MESSAGES / 20)));
  const rows = [...mailRows(new TextMaker(8), templates, count, startMs)];
  const insert = insertInto(
    db,
    'messages',
    Object.keys(templates[0]!).filter((c) => c !== 'id'),
  );
  const once = (indexed: boolean): number => {
    db.exec('BEGIN');
    try {
      if (!indexed) db.exec('DROP TRIGGER search_mail_insert');
      const started = performance.now();
      for (const row of rows) insert.run({ ...row, message_id: randomUUID() });
      if (indexed) new SearchIndexer(db).runToEnd();
      return performance.now() - started;
    } finally {
      db.exec('ROLLBACK');
    }
  };
  const withIndex: number[] = [];
  const without: number[] = [];
  for (let i = 0; i < 2; i++) {
    withIndex.push(once(true));
    without.push(once(false));
  }
  const best = (xs: number[]) => Math.min(...xs);
  return {
    rows: count,
    with_index_rows_per_s: Math.round(count / (best(withIndex) / 1000)),
    without_index_rows_per_s: Math.round(count / (best(without) / 1000)),
    ratio: Math.round((best(without) / best(withIndex)) * 1000) / 1000,
  };
}

/** DOCUMENTS documents of one team, created through the documents service (which indexes each version). */
function seedDocuments(db: Database, member: DocsMember): Planted {
  const ctx = { db, clock: systemClock, bus: new EventBus() } as unknown as NodeContext;
  const documents = new Documents(ctx, new DocsBilling(db), new AppEvents(ctx));
  const author = {
    member: {
      team_id: member.teamId,
      certificate_id: member.certificateId,
      alias: 'search-docs-member',
      did_key: member.didKey,
      did_aw: null,
      address: null,
      lifetime: 'persistent' as const,
      scopes: [],
    },
  };
  const text = new TextMaker(5);
  const batch = db.transaction((from: number, n: number) => {
    for (let i = from; i < from + n; i++) {
      const { title, body } = text.document();
      documents.create(member.teamId, { slug: `doc-${i}`, title, body: Buffer.from(body), source: 'api' }, author);
    }
  });
  for (let done = 0; done < DOCUMENTS; done += 500) batch(done, Math.min(500, DOCUMENTS - done));
  return text.planted;
}

const INDEXES = ['search_mail', 'search_chat', 'search_documents', 'search_library'];

/** Bytes of every table and index from dbstat, each search index's shadow tables summed. */
function indexSize(db: Database) {
  const started = performance.now();
  const rows = db.prepare(`SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name`).all() as Array<{ name: string; bytes: number }>;
  const total = rows.reduce((sum, row) => sum + row.bytes, 0);
  const of = (prefix: string) => rows.filter((row) => row.name.startsWith(`${prefix}_`)).reduce((sum, row) => sum + row.bytes, 0);
  const indexes = Object.fromEntries(INDEXES.map((name) => [name, of(name)]));
  const search = Object.values(indexes).reduce((a, b) => a + b, 0) + of('search_document_versions') + of('search_library_items') + of('search_backfill');
  const messages = rows
    .filter((row) => row.name === 'messages' || row.name.startsWith('messages_') || row.name === 'sqlite_autoindex_messages_1')
    .reduce((sum, row) => sum + row.bytes, 0);
  const text = db.prepare(`SELECT sum(length(CAST(subject AS BLOB)) + length(CAST(body AS BLOB))) FROM messages`).pluck().get() as number;
  const mb = (bytes: number) => Math.round(bytes / 1e5) / 10;
  return {
    database_mb: mb(total),
    search_mb: mb(search),
    search_share: Math.round((search / total) * 1000) / 1000,
    per_index_mb: Object.fromEntries(Object.entries(indexes).map(([name, bytes]) => [name, mb(bytes)])),
    mail_index_share: Math.round(((indexes.search_mail ?? 0) / total) * 1000) / 1000,
    messages_table_and_indexes_mb: mb(messages),
    mail_text_mb: mb(text),
    mail_index_per_text_byte: Math.round(((indexes.search_mail ?? 0) / text) * 100) / 100,
    shadow_tables_mb: Object.fromEntries(rows.filter((row) => row.name.startsWith('search_mail_')).map((row) => [row.name, mb(row.bytes)])),
    dbstat_seconds: seconds(performance.now() - started),
  };
}

// ------------------------------------------------------------------------------ queries

interface Probe {
  /** Untimed, before each timed run (signing a request is the client's cost). */
  prepare?: (i: number) => void;
  run: (i: number) => Promise<unknown>;
}

/**
 * Each probe `n` times after `warmup` runs (or 5 s of them), taking turns run by run. A probe that
 * has spent PROBE_BUDGET_S once it has MIN_SAMPLES samples stops there (its `n` says so): a query
 * of seconds shows its miss in fewer runs, and a thousand of them would take an hour.
 */
async function interleaved(n: number, probes: Record<string, Probe>, warmup = Math.min(20, n)): Promise<Record<string, Timing>> {
  const entries = Object.entries(probes).map(([name, probe]) => ({ name, probe, samples: [] as number[], warm: 0, warmMs: 0, spentMs: 0 }));
  for (let i = 0; i < warmup + n; i++) {
    for (const entry of entries) {
      const warming = entry.warm < warmup && entry.warmMs < 5000;
      if (!warming && (entry.samples.length >= n || (entry.samples.length >= MIN_SAMPLES && entry.spentMs > PROBE_BUDGET_S * 1000))) continue;
      entry.probe.prepare?.(i);
      const started = performance.now();
      await entry.probe.run(i);
      const elapsed = performance.now() - started;
      if (warming) {
        entry.warm++;
        entry.warmMs += elapsed;
      } else {
        entry.samples.push(elapsed);
        entry.spentMs += elapsed;
      }
    }
  }
  return Object.fromEntries(entries.map((entry) => [entry.name, summarize(entry.samples)]));
}

interface QuerySpec {
  q: string;
  from?: string;
  after?: string;
  sort?: 'recent';
}

const queryString = (spec: QuerySpec): string =>
  Object.entries(spec)
    .map(([key, value]) => `${key}=${encodeURIComponent(String(value))}`)
    .join('&');

/** The identity's queries: the rare one rotates through the rare words. */
function identityQueries(f: Fixture): Record<string, (i: number) => QuerySpec> {
  const after = new Date(Date.now() - 30 * 86_400_000).toISOString();
  return {
    rare: (i) => ({ q: rareWord(i % RARE_WORDS) }),
    common: () => ({ q: COMMON }),
    prefix: () => ({ q: `${PREFIX}*` }),
    phrase: () => ({ q: `"${PHRASE}"` }),
    filtered: () => ({ q: COMMON, from: f.senders[3]!.alias, after }),
    recent: () => ({ q: COMMON, sort: 'recent' }),
    accented: () => ({ q: 'cafe' }),
  };
}

async function getJson(url: string, headers: Record<string, string>): Promise<SearchResults> {
  const response = await fetch(url, { headers });
  if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`);
  return SearchResults.parse(await response.json());
}

function check(name: string, ok: boolean, detail: unknown): void {
  if (!ok) throw new Error(`search ${name} answered wrong: ${JSON.stringify(detail).slice(0, 2000)}`);
}

/** Each query answers what the corpus holds before any is timed. */
async function checkAnswers(f: Fixture, specs: Record<string, (i: number) => QuerySpec>): Promise<Record<string, { results: number; more_matches: boolean }>> {
  const bearer = { authorization: `Bearer ${f.owner.api_key}` };
  const answers: Record<string, SearchResults> = {};
  for (const [name, spec] of Object.entries(specs)) answers[name] = await getJson(`${f.bench.url}/v1/search?${queryString(spec(0))}`, bearer);
  const rare = answers.rare!;
  const expectedRare = Math.min(RARE_COUNT, MESSAGES);
  check('rare', rare.results.length === expectedRare && rare.results.every((h) => h.snippet.toLowerCase().includes(rareWord(0))), rare);
  check(
    'common',
    answers.common!.results.length === 20 && answers.common!.results.every((h) => h.snippet.toLowerCase().includes(COMMON) || h.title.includes(COMMON)),
    answers.common,
  );
  check('prefix', answers.prefix!.results.length === 20, answers.prefix);
  check('phrase', answers.phrase!.results.length > 0 && answers.phrase!.results.every((h) => h.snippet.toLowerCase().includes(PHRASE)), answers.phrase);
  const filter = specs.filtered!(0);
  const sender = f.senders[3]!.alias;
  check(
    'filtered',
    answers.filtered!.results.length > 0 &&
      answers.filtered!.results.every(
        (h) => h.created_at >= filter.after! && (h.kind === 'mail' || h.kind === 'chat') && (h.from === sender || h.from.endsWith(`/${sender}`)),
      ),
    answers.filtered,
  );
  const recent = answers.recent!.results.map((h) => h.created_at);
  check('recent', recent.length === 20 && recent.every((at, i) => i === 0 || at <= recent[i - 1]!), recent);
  check('accented', answers.accented!.results.length > 0 && answers.accented!.results.every((h) => h.snippet.toLowerCase().includes('café')), answers.accented);
  return Object.fromEntries(Object.entries(answers).map(([name, a]) => [name, { results: a.results.length, more_matches: a.more_matches }]));
}

async function queryLatency(f: Fixture) {
  const specs = identityQueries(f);
  const answers = await checkAnswers(f, specs);
  const bearer = { authorization: `Bearer ${f.owner.api_key}` };
  const ownerBearer = () => ({ authorization: `Bearer ${f.bench.node.ownerToken}` });
  const ownerPath = `/v1/node/search?${queryString({ q: COMMON })}`;
  const docsPath = `/v1/search/documents?${queryString({ q: COMMON })}`;
  const owner = await getJson(`${f.bench.url}${ownerPath}`, ownerBearer());
  check('owner', owner.results.length === 20, owner);
  const docs = await getJson(`${f.bench.url}${docsPath}`, { ...f.member.sign(docsPath) });
  check('documents', docs.results.length === 20 && docs.results.every((h) => h.kind === 'document'), docs);

  let docsHeaders: TeamHeaders | null = null;
  const probes: Record<string, Probe> = {};
  for (const [name, spec] of Object.entries(specs)) probes[name] = { run: (i) => getJson(`${f.bench.url}/v1/search?${queryString(spec(i))}`, bearer) };
  probes.owner_common = { run: () => getJson(`${f.bench.url}${ownerPath}`, ownerBearer()) };
  probes.documents_common = {
    // Signed just before it is sent: each signature is accepted once, within 300 s.
    prepare: () => (docsHeaders = f.member.sign(docsPath)),
    run: () => getJson(`${f.bench.url}${docsPath}`, { ...docsHeaders! }),
  };
  const http = await interleaved(QUERIES, probes);
  const service = await serviceLatency(f, specs);
  const worst = Math.max(...Object.values(http).map((t) => t.p99_ms));
  return {
    answers: {
      ...answers,
      owner_common: { results: owner.results.length, more_matches: owner.more_matches },
      documents_common: { results: docs.results.length, more_matches: docs.more_matches },
    },
    http,
    ...service,
    target_p99_ms: TARGET_P99_MS,
    worst_p99_ms: worst,
    target_met: worst <= TARGET_P99_MS,
  };
}

/**
 * The identity's queries again, without HTTP: through SearchService on a second connection
 * (parsing, every kind's candidates, ranking, snippets), and the mail index's SQL alone
 * (mailCandidates, the query plan with it).
 */
async function serviceLatency(f: Fixture, specs: Record<string, (i: number) => QuerySpec>) {
  const { db, close } = await openNodeDatabase(f.bench.dataDir);
  try {
    const search = new SearchService(db, systemClock);
    const scope = identityScope(f.owner.agent_id);
    const service: Record<string, Probe> = {};
    const sql: Record<string, Probe> = {};
    const plans: Record<string, string[]> = {};
    const mailSql = (spec: QuerySpec) => {
      const input = SearchQuery.parse(spec);
      // As the service asks: a prefix by its words in the index, as written in rows not yet in it.
      const query = parseQuery(input.q);
      const scoped = (text: string) => scopedMatch([agentScope(f.owner.agent_id)], text)!;
      const match = {
        indexed: scoped(query.match(textColumns('mail'), (prefix) => wordsStartingWith(db, 'search_mail', prefix, PREFIX_WORDS))),
        recent: scoped(query.match(textColumns('mail'))),
      };
      const filter = { agentId: f.owner.agent_id, from: input.from ?? null, to: null, after: input.after ?? null, before: null, unread: false };
      return { match, filter, window: input.sort === 'recent' ? input.limit + 1 : 1000 };
    };
    for (const [name, spec] of Object.entries(specs)) {
      service[name] = { run: async (i) => search.search(scope, SearchQuery.parse(spec(i))) };
      sql[name] = {
        run: async (i) => {
          const { match, filter, window } = mailSql(spec(i));
          return mailCandidates(db, match, filter, window);
        },
      };
    }
    const { match } = mailSql(specs.common!(0));
    plans.mail_candidates = (
      db
        .prepare(
          `EXPLAIN QUERY PLAN SELECT m.id, m.created_at FROM search_mail JOIN messages m ON m.id = search_mail.rowid
            WHERE search_mail MATCH ? ORDER BY search_mail.rowid DESC`,
        )
        .all(match.indexed) as Array<{ detail: string }>
    ).map((row) => row.detail);
    return {
      service: await interleaved(SERVICE_QUERIES, service),
      mail_sql_alone: await interleaved(SERVICE_QUERIES, sql),
      plans,
    };
  } finally {
    close();
  }
}

// ------------------------------------------------------------------------------ write path

function startAt(dataDir: string): Promise<RunningNode> {
  return startNode({ dataDir, port: 0, uiDir: null, custody: { backend: 'key-file' }, warn: () => {} });
}

/** `total` sends to the owner driven by CLIENTS concurrent loops; milliseconds taken. */
async function sendAll(url: string, f: Fixture, bodies: ReadonlyArray<{ subject: string; body: string }>, from: number, total: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      for (let i = next++; i < total; i = next++) {
        const mail = bodies[(from + i) % bodies.length]!;
        const response = await fetch(`${url}/v1/messages`, {
          method: 'POST',
          headers: { authorization: `Bearer ${f.senders[i % CLIENTS]!.api_key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ to_alias: f.owner.alias, ...mail }),
        });
        if (!response.ok) throw new Error(`send: ${response.status} ${await response.text()}`);
        await response.arrayBuffer();
      }
    }),
  );
  return performance.now() - started;
}

/**
 * Sends/s with the index against without it: node B is a copy of node A's data (the same million
 * messages, the same identities and keys) whose mail trigger was dropped. They take turns, round
 * by round, the order swapped each round, so noise from the machine hits both.
 */
async function writePath(f: Fixture) {
  await f.bench.node.close();
  const copyDir = mkdtempSync(join(tmpdir(), 'svc-node-bench-search-'));
  try {
    cpSync(f.bench.dataDir, copyDir, { recursive: true });
    const { db, close } = await openNodeDatabase(copyDir);
    try {
      db.exec('DROP TRIGGER search_mail_insert');
    } finally {
      close();
    }
    await f.bench.restart();
    const without = await startAt(copyDir);
    try {
      const text = new TextMaker(6);
      const bodies = Array.from({ length: 1000 }, () => text.mail([]));
      const nodes = { indexed: f.bench.url, not_indexed: without.info.core_url };
      for (const url of Object.values(nodes)) await sendAll(url, f, bodies, 0, 200);
      const perRound = Math.max(CLIENTS, Math.round(SENDS / ROUNDS));
      const ms = { indexed: 0, not_indexed: 0 };
      const roundRatios: number[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        const order = r % 2 === 0 ? (['indexed', 'not_indexed'] as const) : (['not_indexed', 'indexed'] as const);
        const took = { indexed: 0, not_indexed: 0 };
        for (const side of order) took[side] = await sendAll(nodes[side], f, bodies, r * perRound, perRound);
        ms.indexed += took.indexed;
        ms.not_indexed += took.not_indexed;
        roundRatios.push(took.not_indexed / took.indexed);
      }
      const rps = (total: number) => Math.round((perRound * ROUNDS) / (total / 1000));
      const inOrder = roundRatios.map((x) => Math.round(x * 1000) / 1000);
      roundRatios.sort((a, b) => a - b);
      const ratio = ms.not_indexed / ms.indexed;
      return {
        clients: CLIENTS,
        sends_per_node: perRound * ROUNDS,
        rounds: ROUNDS,
        mailbox_messages: MESSAGES,
        indexed_rps: rps(ms.indexed),
        not_indexed_rps: rps(ms.not_indexed),
        ratio: Math.round(ratio * 1000) / 1000,
        round_ratios: {
          min: Math.round(roundRatios[0]! * 1000) / 1000,
          median: Math.round(roundRatios[Math.floor(ROUNDS / 2)]! * 1000) / 1000,
          max: Math.round(roundRatios.at(-1)! * 1000) / 1000,
          in_order: inOrder,
        },
        target_ratio: TARGET_WRITE_RATIO,
        target_met: ratio >= TARGET_WRITE_RATIO,
      };
    } finally {
      await without.close();
    }
  } finally {
    rmSync(copyDir, { recursive: true, force: true });
  }
}

// ------------------------------------------------------------------------------ backfill

/** The mail index built from scratch by the backfill, on the node's own pragmas, the node stopped. */
async function backfill(f: Fixture) {
  await f.bench.node.close();
  const { db, close } = await openNodeDatabase(f.bench.dataDir);
  try {
    const count = (q: string) => db.prepare(`SELECT count(*) FROM search_mail WHERE search_mail MATCH ?`).pluck().get(q) as number;
    const before = count(COMMON);
    // What migration 0029 finds (test/api/search-backfill.test.ts's forgetIndex), for mail.
    db.prepare(`INSERT INTO search_mail (search_mail) VALUES ('delete-all')`).run();
    db.exec(`DELETE FROM search_backfill WHERE kind = 'mail';
      INSERT INTO search_backfill SELECT 'mail', '0', CAST(coalesce(max(id), 0) AS TEXT), 0, count(*) FROM messages;`);
    const rows = db.prepare(`SELECT total FROM search_backfill WHERE kind = 'mail'`).pluck().get() as number;
    check('backfill reset', count(COMMON) === 0, { left: count(COMMON) });
    let batches = 0;
    const started = performance.now();
    new SearchBackfill(
      db,
      () => null,
      () => batches++,
    ).runToEnd();
    const ms = performance.now() - started;
    const after = count(COMMON);
    check('backfill', after === before, { before, after });
    const bytes =
      (db
        .prepare(`SELECT sum(pgsize) FROM dbstat WHERE name IN ('search_mail_data', 'search_mail_idx', 'search_mail_docsize', 'search_mail_config')`)
        .pluck()
        .get() as number | null) ?? 0;
    return {
      rows,
      batches,
      seconds: seconds(ms),
      rows_per_s: Math.round(rows / (ms / 1000)),
      mail_index_mb_after: Math.round(bytes / 1e5) / 10,
      common_word_rows_before_and_after: after,
      database_file_mb: Math.round(statSync(join(f.bench.dataDir, 'node.db')).size / 1e5) / 10,
    };
  } finally {
    close();
  }
}

export async function run(): Promise<void> {
  const bench = await startBenchNode();
  try {
    const f = await setUp(bench);
    const seeded = await seed(f);
    report('search-seed', { ...seeded.seeding, corpus: seeded.corpus });
    report('search-index-size', { messages: MESSAGES, chats: CHATS, documents: DOCUMENTS, ...seeded.size });
    await bench.restart();
    report('search-latency', {
      messages: MESSAGES,
      chats: CHATS,
      documents: DOCUMENTS,
      queries: QUERIES,
      service_queries: SERVICE_QUERIES,
      ...(await queryLatency(f)),
    });
    report('search-write-path', await writePath(f));
    report('search-backfill', await backfill(f));
  } finally {
    await bench.stop();
  }
}
