/**
 * Every operation of the API description has an `operationId`: the name a generated client gives
 * the call. One rule makes them all, here, from the method and the path, so a route never has to
 * name itself and a name stays the same for as long as its route does:
 *
 * - the words are the path's fixed segments, camelCased, without `api` and `v1`, in the singular
 *   (`messages/{id}/ack` is about one `Message`) except a collection the path ends with (`list`
 *   and `get` of `.../versions`); `me` stands for the caller's own item as a parameter would;
 * - a fixed last segment that is an action (`ack`, `archive`, `verify`, `join`, ...) is the verb
 *   (`POST /v1/messages/{message_id}/ack` is `ackMessage`);
 * - otherwise the method says it: GET is `list` for a collection and `get` for an item or a
 *   single thing, POST is `create`, PUT and PATCH `update`, DELETE `delete`.
 *
 * Where upstream (aweb) names the same operation, its name is used instead (its handlers' names,
 * camelCased), so a client written against upstream finds its calls under the names it knows;
 * a few others read better named by hand. Both are in {@link NAMED}.
 */

/** Upstream's names for the operations it shares, and the few the rule would name awkwardly. */
const NAMED: Readonly<Record<string, string>> = {
  // Upstream's names (aweb's handlers).
  'POST /v1/messages': 'sendMessage',
  'GET /v1/messages/inbox': 'getInbox',
  'POST /v1/messages/{message_id}/ack': 'ackMessage',
  'POST /v1/chat/sessions': 'createOrSendChat',
  'GET /v1/chat/sessions': 'listChatSessions',
  'GET /v1/chat/pending': 'listChatPending',
  'GET /v1/chat/sessions/{session_id}/messages': 'getChatHistory',
  'POST /v1/chat/sessions/{session_id}/messages': 'sendChatMessage',
  'POST /v1/chat/sessions/{session_id}/read': 'markChatRead',
  'GET /v1/chat/sessions/{session_id}/stream': 'streamChatSession',
  'POST /v1/agents/{alias}/control': 'sendControlSignal',
  'GET /v1/events/stream': 'eventStream',
  'POST /v1/connect': 'connectTeamMember',
  'GET /v1/team': 'getTeamInfo',
  'GET /v1/agents': 'listAgents',
  'POST /v1/agents/heartbeat': 'agentHeartbeat',
  'PATCH /v1/agents/me': 'patchAgentWorkspace',
  'DELETE /v1/workspaces/{workspace_id}': 'deleteWorkspace',
  'GET /v1/contacts': 'listContacts',
  'POST /v1/contacts': 'createContact',
  'DELETE /v1/contacts/{contact_id}': 'deleteContact',
  'POST /v1/did': 'registerDid',
  'PUT /v1/did/{did_aw}': 'updateDidMapping',
  'GET /v1/did/{did_aw}/key': 'getDidKey',
  'GET /v1/did/{did_aw}/head': 'getDidHead',
  'GET /v1/did/{did_aw}/log': 'getDidLog',
  'POST /v1/namespaces': 'registerNamespace',
  'POST /v1/namespaces/{domain}/addresses': 'registerAddress',
  'GET /v1/namespaces/{domain}/addresses': 'listAddresses',
  'GET /v1/namespaces/{domain}/addresses/{name}': 'getAddress',
  'PUT /v1/namespaces/{domain}/addresses/{name}': 'updateAddress',
  'DELETE /v1/namespaces/{domain}/addresses/{name}': 'deleteAddress',
  'POST /v1/namespaces/{domain}/addresses/{name}/reassign': 'reassignAddress',
  // The rule's words would not say what these do.
  'GET /v1/namespaces/{domain}/addresses/{name}/replacements': 'listAddressReplacements',
  'GET /v1/auth/introspect': 'introspectKey',
  'GET /v1/agents/resolve/{namespace}/{name}': 'resolveAddress',
  'GET /v1/messages/outbound': 'listOutbound',
  'GET /v1/messages/sent': 'listSent',
  'GET /v1/messages/sent/{message_id}': 'getSentMessage',
  'POST /v1/messages/{message_id}/unread': 'markMessageUnread',
  'GET /v1/messages/{message_id}/rendered': 'renderMessage',
  'GET /v1/node/events/stream': 'nodeEventStream',
  'GET /health': 'getHealth',
  'GET /v1/search': 'search',
  'GET /v1/search/library': 'searchLibrary',
  'GET /v1/search/documents': 'searchDocuments',
  'GET /v1/node/search': 'searchNode',
  'POST /v1/federation/messages': 'receiveFederationMessage',
  'POST /v1/federation/messages/batch': 'receiveFederationBatch',
  'PUT /v1/agents/me/rotate': 'rotateAgentKey',
  'POST /v1/profiles/{profile_ref}/update-from-source': 'updateProfileFromSource',
  'POST /v1/shelf/import': 'importShelfProfile',
  'POST /v1/present': 'createPresentLink',
  'GET /v1/present': 'listPresentLinks',
  'POST /v1/present/{token}/revoke': 'revokePresentLink',
  'GET /present/{token}': 'getPresentPage',
  'POST /present/{token}/preview': 'previewPresentEdit',
  'GET /assets/{asset_id}': 'getAssetBytes',
  'POST /v1/node/teams/{team_id}/sign': 'signAsTeamOwner',
  'POST /mcp': 'mcpRequest',
};

/** Fixed last segments that are what the operation does. */
const ACTIONS = new Set([
  'ack',
  'approve',
  'archive',
  'edit',
  'export',
  'heartbeat',
  'import',
  'init',
  'join',
  'materialize',
  'preview',
  'publish',
  'reassign',
  'register',
  'reject',
  'replace',
  'revoke',
  'rotate',
  'setup',
  'sign',
  'start',
  'stop',
  'unarchive',
  'upload',
  'verify',
]);

/** Words ending in `s` that are not plurals. */
const NOT_PLURAL = new Set(['access', 'billing', 'docs', 'status']);

const camel = (segment: string): string => segment.replace(/[-_](\w)/g, (_all, letter: string) => letter.toUpperCase());
const capital = (word: string): string => (word === '' ? word : word[0]!.toUpperCase() + word.slice(1));
const isPlural = (word: string): boolean => word.endsWith('s') && !word.endsWith('ss') && !NOT_PLURAL.has(word);

function singular(word: string): string {
  if (!isPlural(word)) return word;
  if (word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (/(ss|sh|ch|x)es$/.test(word)) return word.slice(0, -2);
  return word.slice(0, -1);
}

const isParameter = (segment: string): boolean => segment.startsWith('{') || segment === 'me';

/** The noun phrase of the path's fixed segments, in the singular but for a collection the path ends with. */
function nouns(segments: readonly string[], lastSingular: boolean): string {
  return segments
    .map((segment, index) => {
      if (isParameter(segment)) return '';
      const last = index === segments.length - 1;
      return capital(last && !lastSingular ? camel(segment) : singular(camel(segment)));
    })
    .join('');
}

const VERB: Readonly<Record<string, string>> = { get: 'get', post: 'create', put: 'update', patch: 'update', delete: 'delete' };

/** The operation's id: its name in {@link NAMED}, or the rule's. `path` is OpenAPI's (`{param}`). */
export function operationIdOf(method: string, path: string): string {
  const named = NAMED[`${method.toUpperCase()} ${path}`];
  if (named !== undefined) return named;
  const segments = path.split('/').filter((segment, index) => segment !== '' && !(index <= 2 && (segment === 'api' || segment === 'v1')));
  const verb = VERB[method.toLowerCase()] ?? method.toLowerCase();
  const last = segments.at(-1);
  if (last === undefined) return `${verb}Root`;
  if (ACTIONS.has(last)) return camel(last) + nouns(segments.slice(0, -1), true);
  if (isParameter(last)) return verb + nouns(segments, false);
  if (verb === 'get') return (isPlural(camel(last)) ? 'list' : 'get') + nouns(segments, false);
  return verb + nouns(segments, verb === 'create');
}
