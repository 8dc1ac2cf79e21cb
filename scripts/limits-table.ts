/**
 * The table of limits at the top of docs/security.md, made from the constants the node enforces,
 * so a changed limit cannot leave its documented value behind: `npm run docs:limits` writes it
 * between the markers below, and test/lint/limits-doc.test.ts fails while they differ. Each row
 * links to the section that explains the limit.
 */
import { MAX_BODY_BYTES, MAX_CHAT_MESSAGE_BYTES, MAX_RECIPIENTS, MAX_SUBJECT } from '../contract/core-rules.ts';
import { FEDERATION_BATCH_MAX_BYTES, FEDERATION_BATCH_MAX_MESSAGES } from '../contract/core/federation.ts';
import { ADDRESS_QUERY_MAX_NAMES } from '../contract/core/namespaces.ts';
import { MAX_SEARCH_PAGE, SEARCH_WINDOW } from '../contract/core/search.ts';
import { IMAGE_MAX_BYTES } from '../contract/docs/rules.ts';
import { UI_CODE_TTL_MS, MAX_UI_CODES } from '../server/auth/owner.ts';
import { MAX_OWNER_SESSIONS, OWNER_SESSION_IDLE_MS, OWNER_SESSION_MAX_MS } from '../server/auth/owner-sessions.ts';
import { ANSWER_LIMITS } from '../server/auth/replay-cache.ts';
import { REPLAY_WINDOW_SECONDS } from '../server/auth/timestamp.ts';
import { AGENT_BUDGET, OWNER_BUDGET } from '../server/cli/node-request.ts';
import { DNS_LIMITS, MAX_DNS_QUERIES_PER_REQUEST } from '../server/dns/limits.ts';
import { TXT_LOOKUP_TIMEOUT_MS } from '../server/dns/resolver.ts';
import { STREAMS_PER_HOLDER } from '../server/events/stream-cap.ts';
import { CHECKED_SENDER_TTL_MS } from '../server/federation/checked-senders.ts';
import { DEFAULT_DOMAIN_BUDGET } from '../server/federation/domain-budget.ts';
import { DID_LOG_MAX_BYTES } from '../server/federation/inbound.ts';
import { CHECK_ANSWER_MAX_BYTES } from '../server/federation/lookup-paths.ts';
import { DEFAULT_OUTBOX_OPTIONS } from '../server/federation/outbox.ts';
import { REMOTE_KEY_FAILURE_TTL_MS, REMOTE_KEY_MAX_ENTRIES, REMOTE_KEY_TTL_MS } from '../server/federation/remote-encryption-keys.ts';
import { BATCH_ANSWER_MAX_BYTES, DELIVERY_ANSWER_MAX_BYTES } from '../server/federation/peer-delivery.ts';
import { INBOUND_TIME_BUDGET_MS } from '../server/federation/sender-lookups.ts';
import { PEER_CONNECTIONS } from '../server/http/connection-limits.ts';
import { BODY_LIMIT_BYTES } from '../server/http/limits.ts';
import { MAX_JSON_DEPTH } from '../server/json-depth.ts';
import { PEER_TIMEOUTS } from '../server/http/peer-timeouts.ts';
import { PEER_RATE_LIMIT } from '../server/http/rate-limit.ts';
import { KEEPALIVE_INTERVAL_MS, MAX_STREAM_SECONDS } from '../server/http/sse.ts';
import { DEFAULT_REMOTE_CLIENT_OPTIONS } from '../server/net/remote-client.ts';
import { MAX_DEPTH as MAX_QUERY_DEPTH, MAX_QUERY_CHARS, MAX_TERMS } from '../server/search/query.ts';
import { SESSION_STREAMS_PER_IDENTITY } from '../server/surfaces/core/chat/stream-limits.ts';
import { PRESENCE_TTL_SECONDS } from '../server/surfaces/core/identities/presence.ts';
import { SEND_ANSWER_TTL_MS } from '../server/surfaces/core/messaging/idempotency.ts';
import { DEFAULT_MAX_ASSET_BYTES } from '../server/surfaces/docs/domain/caps.ts';
import { PRESENT_TTL_DEFAULT_SECONDS, PRESENT_TTL_MAX_SECONDS } from '../server/surfaces/docs/present/service.ts';
import { PAGE_CACHE_BYTES } from '../server/surfaces/docs/present/pages.ts';
import { RENDER_MAX_BYTES } from '../server/markdown/lazy.ts';
import { RENDER_BUDGET_MS, RENDER_HEAP_MB, RENDER_QUEUE_MAX } from '../server/markdown/pool.ts';
import { UPLOAD_IDLE_MS, UPLOAD_TTL_MS, VIDEO_MAX_BYTES } from '../server/surfaces/docs/assets/video-uploads.ts';
import { MAX_YAML_BYTES } from '../server/surfaces/library/domain/yaml-doc.ts';
import { KIT_PASSPHRASE_MAX, KIT_PASSPHRASE_MIN } from '../contract/node/recovery-kit.ts';
import { KIT_MAX_BYTES, KIT_SCRYPT_COST } from '../server/recovery/kit/format.ts';

export const START_MARKER = '<!-- limits:start (npm run docs:limits writes this table) -->';
export const END_MARKER = '<!-- limits:end -->';

/** A count with thousands separated: 20,000. */
const n = (count: number): string => count.toLocaleString('en-US');

/** Bytes in the largest binary unit that divides them: 64 KiB, 2 MiB. */
export function bytes(count: number): string {
  for (const [unit, size] of [
    ['GiB', 2 ** 30],
    ['MiB', 2 ** 20],
    ['KiB', 2 ** 10],
  ] as const) {
    if (count >= size && count % size === 0) return `${n(count / size)} ${unit}`;
  }
  return `${n(count)} bytes`;
}

/** A duration in the largest unit that divides it, seconds up to a minute: 60 s, 5 min, 1 h, 14 days. */
export function duration(ms: number): string {
  if (ms % 1000 !== 0) return `${n(ms)} ms`;
  if (ms % 86_400_000 === 0) return ms === 86_400_000 ? '1 day' : `${n(ms / 86_400_000)} days`;
  if (ms % 3_600_000 === 0) return `${n(ms / 3_600_000)} h`;
  if (ms > 60_000 && ms % 60_000 === 0) return `${n(ms / 60_000)} min`;
  return `${n(ms / 1000)} s`;
}

const s = (seconds: number): number => seconds * 1000;

type Row = [limit: string, value: string, section: string];

const SECTIONS: [string, Row[]][] = [
  [
    'Requests and input',
    [
      ['Request body', `${bytes(BODY_LIMIT_BYTES)} (413)`, '#bounded-input'],
      ['JSON and YAML nesting', `${MAX_JSON_DEPTH} levels`, '#bounded-input'],
      ['`blueprint.yaml` / `profile.yaml`', bytes(MAX_YAML_BYTES), '#bounded-input'],
      ['Mail', `${MAX_RECIPIENTS} recipients, a ${MAX_SUBJECT}-character subject, a ${bytes(MAX_BODY_BYTES)} body`, 'http-api.md#mail'],
      ['Chat message', bytes(MAX_CHAT_MESSAGE_BYTES), 'http-api.md#chat'],
      ["A send's answer kept for its `message_id` (idempotency)", duration(SEND_ANSWER_TTL_MS), 'http-api.md#mail'],
      ['Signed request timestamps', `±${REPLAY_WINDOW_SECONDS} s`, '#signatures-sessions-and-the-lock'],
      [
        'Answers kept to repeat an identical signed write',
        `each at most ${bytes(ANSWER_LIMITS.maxAnswerBytes)}; ${n(ANSWER_LIMITS.maxKeptAnswers)} and ${bytes(ANSWER_LIMITS.maxKeptBytes)} in all`,
        '#signatures-sessions-and-the-lock',
      ],
      [
        'Search query',
        `${n(MAX_QUERY_CHARS)} characters, ${MAX_TERMS} terms, ${MAX_QUERY_DEPTH} levels of parentheses; ${MAX_SEARCH_PAGE} hits a page; the ${n(SEARCH_WINDOW)} most recent matches of each kind ranked`,
        'http-api.md#search',
      ],
      ['Addresses asked for by name at once', `${ADDRESS_QUERY_MAX_NAMES}`, 'http-api.md#namespaces-and-addresses'],
    ],
  ],
  [
    'Streams, sessions and presence',
    [
      ['Event streams open per identity (and owner feeds)', `${STREAMS_PER_HOLDER}; one more closes the oldest`, '#work-a-request-can-cause'],
      ['Chat session streams open per identity', `${SESSION_STREAMS_PER_IDENTITY}; one more closes the oldest`, '#work-a-request-can-cause'],
      ["An event stream's deadline", `at most ${MAX_STREAM_SECONDS} s ahead`, 'http-api.md#event-streams'],
      ['Keepalive comment on every stream', `every ${duration(KEEPALIVE_INTERVAL_MS)}`, 'http-api.md#event-streams'],
      ['Sign-in link', `works once, for ${duration(UI_CODE_TTL_MS)}; ${MAX_UI_CODES} outstanding`, '#signatures-sessions-and-the-lock'],
      [
        'Browser session',
        `ends after ${duration(OWNER_SESSION_IDLE_MS)} unused or ${duration(OWNER_SESSION_MAX_MS)} after signing in; ${MAX_OWNER_SESSIONS} live`,
        '#signatures-sessions-and-the-lock',
      ],
      ['Online after a heartbeat', duration(s(PRESENCE_TTL_SECONDS)), 'http-api.md#team-certificate-identities'],
    ],
  ],
  [
    'Documents',
    [
      ['Markdown rendered (larger shows as plain text)', bytes(RENDER_MAX_BYTES), 'http-api.md#documents'],
      [
        'One render',
        `${duration(RENDER_BUDGET_MS)} and ${RENDER_HEAP_MB} MB of heap; ${RENDER_QUEUE_MAX} waiting per listener (then 503)`,
        '#work-a-request-can-cause',
      ],
      ['Read-link page cache', bytes(PAGE_CACHE_BYTES), 'http-api.md#documents'],
      [
        'Present link lifetime',
        `${duration(s(PRESENT_TTL_DEFAULT_SECONDS))} by default, at most ${duration(s(PRESENT_TTL_MAX_SECONDS))}`,
        'http-api.md#documents',
      ],
      ['Image or logo', bytes(IMAGE_MAX_BYTES), 'http-api.md#documents'],
      [
        'Video',
        `${bytes(VIDEO_MAX_BYTES)}; its upload URL works ${duration(UPLOAD_TTL_MS)}; an upload stalled ${duration(UPLOAD_IDLE_MS)} is dropped`,
        'http-api.md#documents',
      ],
      ["A team's assets, unless the owner sets another quota", bytes(DEFAULT_MAX_ASSET_BYTES), 'http-api.md#documents'],
    ],
  ],
  [
    'The recovery kit',
    [
      ['Kit file', `${bytes(KIT_MAX_BYTES)}, made and read`, '#the-recovery-kit'],
      ['Passphrase', `${KIT_PASSPHRASE_MIN} to ${n(KIT_PASSPHRASE_MAX)} characters`, '#the-recovery-kit'],
      ["A new kit's scrypt", `N = 2^${KIT_SCRYPT_COST}, r = 8, p = 1`, '#the-recovery-kit'],
    ],
  ],
  [
    'The peer listener',
    [
      ['Connections', `${PEER_CONNECTIONS.perClient} per client, ${PEER_CONNECTIONS.total} in all`, '#connections-and-rates'],
      ['Requests per client', `a burst of ${PEER_RATE_LIMIT.burst}, then ${PEER_RATE_LIMIT.perSecond}/s (429)`, '#connections-and-rates'],
      [
        'Timeouts',
        `headers ${duration(PEER_TIMEOUTS.headersMs)}, request ${duration(PEER_TIMEOUTS.requestMs)}, keep-alive ${duration(PEER_TIMEOUTS.keepAliveMs)}, idle ${duration(PEER_TIMEOUTS.idleMs)}`,
        '#connections-and-rates',
      ],
    ],
  ],
  [
    'Federation',
    [
      ['Batch', `${FEDERATION_BATCH_MAX_MESSAGES} messages, ${bytes(FEDERATION_BATCH_MAX_BYTES)}`, 'federation.md#federation-and-the-tunnel'],
      [
        'Messages from one sending domain',
        `a burst of ${n(DEFAULT_DOMAIN_BUDGET.messages.burst)}, then ${n(DEFAULT_DOMAIN_BUDGET.messages.perSecond)}/s; ${bytes(DEFAULT_DOMAIN_BUDGET.bytes.burst)}, then ${bytes(DEFAULT_DOMAIN_BUDGET.bytes.perSecond)}/s`,
        '#connections-and-rates',
      ],
      ['Checks one request causes', `${duration(INBOUND_TIME_BUDGET_MS)} and ${MAX_DNS_QUERIES_PER_REQUEST} DNS queries`, '#connections-and-rates'],
      ['A sender checked with its node is trusted for', duration(CHECKED_SENDER_TTL_MS), 'federation.md#federation-and-the-tunnel'],
      [
        "A recipient's encryption key found on its node",
        `used for ${duration(REMOTE_KEY_TTL_MS)} (never past its expiry), a refusal remembered for ${duration(REMOTE_KEY_FAILURE_TTL_MS)}, ${n(REMOTE_KEY_MAX_ENTRIES)} addresses at most`,
        'federation.md#federation-and-the-tunnel',
      ],
      [
        'Outbox',
        `bounces after ${duration(DEFAULT_OUTBOX_OPTIONS.giveUpAfterMs)}; ${duration(DEFAULT_OUTBOX_OPTIONS.deliveryTimeoutMs)} per delivery; ${DEFAULT_OUTBOX_OPTIONS.inFlightPerPeer} requests at once per peer node`,
        'federation.md#federation-and-the-tunnel',
      ],
    ],
  ],
  [
    'DNS',
    [
      ['TXT lookup', `gives up after ${duration(TXT_LOOKUP_TIMEOUT_MS)}`, '#dns'],
      [
        'Queries node-wide',
        `${DNS_LIMITS.ratePerSecond}/s with a burst of ${DNS_LIMITS.rateBurst}; ${DNS_LIMITS.concurrency} in flight, ${DNS_LIMITS.queueLength} waiting at most ${duration(DNS_LIMITS.queueWaitMs)}`,
        '#dns',
      ],
      [
        'Cache',
        `records ${duration(DNS_LIMITS.positiveTtlMs)}, no record ${duration(DNS_LIMITS.negativeTtlMs)}, failures ${duration(DNS_LIMITS.failureTtlMs)}; ${n(DNS_LIMITS.cacheEntries)} names`,
        '#dns',
      ],
    ],
  ],
  [
    'Requests to other nodes',
    [
      [
        'Time',
        `connect ${duration(DEFAULT_REMOTE_CLIENT_OPTIONS.connectTimeoutMs)}, ${duration(DEFAULT_REMOTE_CLIENT_OPTIONS.timeoutMs)} per request`,
        'federation.md#fetches-from-other-nodes',
      ],
      [
        'At once',
        `${DEFAULT_REMOTE_CLIENT_OPTIONS.perOriginConcurrency} per origin and ${DEFAULT_REMOTE_CLIENT_OPTIONS.totalConcurrency} in all, with ${DEFAULT_REMOTE_CLIENT_OPTIONS.perOriginWaiting} and ${DEFAULT_REMOTE_CLIENT_OPTIONS.totalWaiting} waiting`,
        'federation.md#fetches-from-other-nodes',
      ],
      [
        'Answers read',
        `${bytes(CHECK_ANSWER_MAX_BYTES)} for a sender check or a key lookup, ${bytes(DID_LOG_MAX_BYTES)} for a \`did:svc\` log, ${bytes(DELIVERY_ANSWER_MAX_BYTES)} for a delivery, ${bytes(BATCH_ANSWER_MAX_BYTES)} for a batch`,
        'federation.md#fetches-from-other-nodes',
      ],
      [
        'The command line',
        `\`team join\` and \`team connect\`: ${duration(AGENT_BUDGET.timeoutMs)} and ${bytes(AGENT_BUDGET.maxBytes)} per answer; owner commands: ${duration(OWNER_BUDGET.timeoutMs)} and ${bytes(OWNER_BUDGET.maxBytes)}`,
        'federation.md#the-command-line-and-the-nodes-it-joins',
      ],
    ],
  ],
];

/** The words a link to each section reads as. */
const SECTION_NAMES: Record<string, string> = {
  '#bounded-input': 'Bounded input',
  '#signatures-sessions-and-the-lock': 'Signatures, sessions and the lock',
  '#work-a-request-can-cause': 'Work a request can cause',
  '#connections-and-rates': 'Connections and rates',
  '#dns': 'DNS',
  '#the-recovery-kit': 'The recovery kit',
  'http-api.md#mail': 'HTTP API: Mail',
  'http-api.md#chat': 'HTTP API: Chat',
  'http-api.md#search': 'HTTP API: Search',
  'http-api.md#namespaces-and-addresses': 'HTTP API: Namespaces',
  'http-api.md#event-streams': 'HTTP API: Event streams',
  'http-api.md#team-certificate-identities': 'HTTP API: Team members',
  'http-api.md#documents': 'HTTP API: Documents',
  'federation.md#federation-and-the-tunnel': 'Federation',
  'federation.md#fetches-from-other-nodes': 'Fetches from other nodes',
  'federation.md#the-command-line-and-the-nodes-it-joins': 'The command line and the nodes it joins',
};

export function limitsTable(): string {
  const rows = SECTIONS.flatMap(([part, limits]) => [
    `| **${part}** | | |`,
    ...limits.map(([limit, value, section]) => `| ${limit} | ${value} | [${SECTION_NAMES[section] ?? section}](${section}) |`),
  ]);
  return [START_MARKER, '| Limit | Value | Explained in |', '|---|---|---|', ...rows, END_MARKER].join('\n');
}

/** The page with its table replaced by the current one. */
export function withLimitsTable(doc: string): string {
  // The start marker's words may change: its opening names the block.
  const start = doc.indexOf(START_MARKER.slice(0, START_MARKER.indexOf(' (')));
  const end = doc.indexOf(END_MARKER);
  if (start < 0 || end < start) throw new Error(`docs/security.md has no ${START_MARKER} … ${END_MARKER} block`);
  return doc.slice(0, start) + limitsTable() + doc.slice(end + END_MARKER.length);
}
