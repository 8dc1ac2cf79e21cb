/**
 * Which tables linked devices keep the same, and how each row is known on every device: by its
 * natural key (never a row id, which each device numbers on its own). Every table of the schema
 * is placed here, synced or not, so the list cannot rot: tables.test.ts fails when a migration
 * adds a table nobody placed.
 *
 * A synced row travels whole: the columns it has after a change (the row id columns left out),
 * applied on the other device by its key when that change is the later one (sync_clock). Rows of
 * an append-only table (a did:svc log, an identity's log) are only ever added.
 */
import { DEVICE_FUNCTION } from '../../store/sync-functions.ts';
import { DEVICE_SETTINGS } from '../device-copy-store.ts';
import { DEVICES_TOPIC, docsTopic, identityTopic, mailTopic, sessionTopic, teamTopic, TEAMS_TOPIC } from '../../events/bus.ts';

/** A synced row as JSON carries it. */
export type SyncRow = Record<string, unknown>;

export interface SyncedTable {
  table: string;
  /** The columns that name a row on every device. */
  key: readonly string[];
  /** Columns each device numbers itself (row ids): left out of what travels. */
  local?: readonly string[];
  /** Rows that are never changed once written: a change to one that exists is not applied. */
  appendOnly?: boolean;
  /** Columns the row travels with filled in (SQL on `NEW.`, the row as this device wrote it). */
  fill?: Readonly<Record<string, string>>;
  /** Rows of the table that stay on their device, as a condition on `row.` (the trigger's NEW or OLD). */
  stays?: string;
  /**
   * Rows that form a chain per group (a document's versions, each stored as a change to the one
   * before it): a row whose place in its group another row holds already was made on another
   * device while apart, and the group's later rows from there no longer apply on this chain. Such
   * a row, and every later one of its group, is kept in the log unapplied (each device keeps its
   * own chain) until the group's two lines are merged.
   */
  chain?: { group: string; id: string };
  /**
   * The row of a chain's group (a document, whose current version points into its chain): while
   * the group is apart (above), another device's change to it is kept in the log unapplied, so it
   * never points at a version of the other line.
   */
  headOf?: string;
  /** What to tell the node's streams when a row of it arrived from another device. */
  nudges?: (row: SyncRow) => string[];
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** In foreign-key order, so a snapshot of the list applies parents first. */
export const SYNCED_TABLES: readonly SyncedTable[] = [
  { table: 'node_settings', key: ['key'], stays: `row.key IN (${[...DEVICE_SETTINGS, 'node_id'].map((key) => `'${key}'`).join(', ')})` },
  // Where another device answers and when it was last heard from are each device's own view.
  { table: 'devices', key: ['device_id'], local: ['url', 'last_seen_at'], nudges: () => [DEVICES_TOPIC] },
  { table: 'namespaces', key: ['domain'] },
  { table: 'did_mappings', key: ['did_aw'] },
  { table: 'did_log', key: ['did_aw', 'seq'], appendOnly: true },
  { table: 'addresses', key: ['domain', 'name'] },
  { table: 'projects', key: ['project_id'] },
  { table: 'agents', key: ['agent_id'] },
  { table: 'agent_log', key: ['log_id'], appendOnly: true },
  { table: 'api_keys', key: ['api_key_id'] },
  { table: 'identity_encryption_keys', key: ['agent_id', 'encryption_key_id'] },
  { table: 'rotation_announcements', key: ['announcement_id'] },
  { table: 'replacement_announcements', key: ['announcement_id'] },
  { table: 'contacts', key: ['contact_id'] },
  { table: 'teams', key: ['team_id'], nudges: () => [TEAMS_TOPIC] },
  { table: 'team_projects', key: ['team_id'] },
  { table: 'team_certificates', key: ['certificate_id'], nudges: (row) => [teamTopic(text(row.team_id)), TEAMS_TOPIC] },
  { table: 'team_invites', key: ['invite_id'] },
  { table: 'team_agents', key: ['workspace_id'] },
  { table: 'event_subscriptions', key: ['subscription_id'] },
  { table: 'library_teams', key: ['team_id'] },
  { table: 'peers', key: ['domain'] },
  // The sender's copy of what went to other nodes; only the device that sent a message delivers it (its rows name no device there).
  { table: 'federation_outbox', key: ['message_id'], local: ['id'], fill: { sent_by_device: `coalesce(NEW.sent_by_device, ${DEVICE_FUNCTION}())` } },
  {
    table: 'messages',
    key: ['message_id'],
    local: ['id'],
    nudges: (row) => [identityTopic(text(row.to_agent_id)), mailTopic(text(row.to_agent_id), text(row.message_id))],
  },
  { table: 'message_sends', key: ['message_id'] },
  { table: 'chat_sessions', key: ['session_id'], nudges: (row) => [sessionTopic(text(row.session_id))] },
  {
    table: 'chat_participants',
    key: ['session_id', 'agent_id', 'remote_address'],
    nudges: (row) => [sessionTopic(text(row.session_id)), identityTopic(text(row.agent_id))],
  },
  { table: 'chat_messages', key: ['message_id'], local: ['id'], nudges: (row) => [sessionTopic(text(row.session_id))] },
  { table: 'chat_plaintext', key: ['message_id', 'agent_id'], local: ['id'] },
  { table: 'control_signals', key: ['signal_id'], local: ['id'], nudges: (row) => [identityTopic(text(row.target_agent_id))] },
  { table: 'app_events', key: ['event_id'], local: ['id'] },
  { table: 'documents', key: ['document_id'], headOf: 'document_versions', nudges: (row) => [docsTopic(text(row.team_id))] },
  { table: 'document_versions', key: ['document_id', 'version_number'], chain: { group: 'document_id', id: 'version_id' } },
  { table: 'present_links', key: ['token_sha256'] },
  { table: 'docs_assets', key: ['asset_id'] },
  { table: 'docs_themes', key: ['team_id'] },
  { table: 'shelf_profiles', key: ['team_id', 'profile_ref'], nudges: (row) => [teamTopic(text(row.team_id))] },
  { table: 'shelf_versions', key: ['team_id', 'profile_ref', 'version'], local: ['seq'], nudges: (row) => [teamTopic(text(row.team_id))] },
  { table: 'profile_bindings', key: ['team_id', 'agent_id'], nudges: (row) => [teamTopic(text(row.team_id))] },
  { table: 'proposals', key: ['proposal_id'], nudges: (row) => [teamTopic(text(row.team_id))] },
];

/** Every other table, and why it stays on each device. */
export const UNSYNCED_TABLES: Readonly<Record<string, string>> = {
  schema_migrations: "each copy's own bookkeeping",
  sqlite_sequence: "SQLite's own",
  custody_keys: 'keys travel sealed to each device (sync.ts), never as rows wrapped under another device’s secret',
  custody_encryption_keys: 'keys travel sealed to each device (sync.ts)',
  custody_secrets: "each device's own secrets; the backup key travels in the join's sealed bundle",
  owner_sessions: "this device's browser sessions",
  owner_session_keys: "this device's browser sessions",
  replay_signatures: "this device's replay cache",
  device_link_codes: "this device's link codes",
  device_ops: 'the sync itself',
  sync_clock: 'the sync itself',
  blueprints: "the public catalog: seeded on each node from the shipped samples; a published blueprint's versions are numbered per node",
  blueprint_versions: 'the public catalog (above)',
  blueprint_profiles: 'the public catalog (above)',
};

/** Tables whose name starts so are the search indexes, which every device builds from its own rows. */
export const DERIVED_PREFIX = 'search_';
