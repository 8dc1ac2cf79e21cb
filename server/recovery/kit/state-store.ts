/**
 * The node's state rows a recovery kit carries, and every other table classified, so the list
 * cannot rot: state-store.test.ts fails when a migration adds a table nobody placed
 * here. A kit holds what the node needs to run the same identities (the node id, projects and
 * their hashed API keys, identities and their did:svc logs, namespaces and addresses, teams,
 * peers, settings, encryption key assertions); history (mail, chat, documents, the shelf) is the
 * backup's. Rows travel by column name, tables in foreign-key order; the table names always come
 * from this list, never from a kit.
 */
import type { Database } from '../../store/database.ts';

/** A value as SQLite holds it in a state row. */
export type SqlValue = string | number | bigint | null | Buffer;
export type StateRow = Record<string, SqlValue>;

export interface KitTable {
  table: string;
  rows: StateRow[];
}

export type TableClass =
  /** carried by the kit as rows */
  | 'kit'
  /** custody's own tables: the kit carries their keys through custody, wrapped anew on restore */
  | 'custody'
  /** history, the backup's job: mail, chat, documents, the shelf and the catalog */
  | 'history'
  /** made again from other tables (the search indexes) */
  | 'rebuilt'
  /** this copy's own and begun anew: browser sessions, the replay cache, migration bookkeeping */
  | 'local';

/**
 * The kit's tables in foreign-key order (a table after those it references), each with the rows
 * it leaves out, as a condition on the table's own rows.
 */
const KIT_TABLES: readonly { table: string; leaveOut?: string }[] = [
  { table: 'node_settings' },
  { table: 'namespaces' },
  { table: 'did_mappings' },
  { table: 'did_log' },
  { table: 'addresses' },
  { table: 'projects' },
  { table: 'agents' },
  { table: 'agent_log' },
  // A browser session's day-long identity keys end with the session, which is this copy's own.
  { table: 'api_keys', leaveOut: 'api_key_id IN (SELECT api_key_id FROM owner_session_keys)' },
  { table: 'identity_encryption_keys' },
  { table: 'rotation_announcements' },
  { table: 'replacement_announcements' },
  { table: 'contacts' },
  { table: 'teams' },
  { table: 'team_projects' },
  { table: 'team_certificates' },
  { table: 'team_invites' },
  { table: 'team_agents' },
  { table: 'event_subscriptions' },
  { table: 'library_teams' },
  { table: 'peers' },
  // The device list: a node restored from the kit knows the person's other devices (and can revoke a lost one).
  { table: 'devices' },
];

export const KIT_TABLE_NAMES: readonly string[] = KIT_TABLES.map((entry) => entry.table);

/** Every table of the schema, by what a kit does with it. */
export const TABLE_CLASSES: Readonly<Record<string, TableClass>> = {
  ...Object.fromEntries(KIT_TABLE_NAMES.map((table) => [table, 'kit' as const])),
  custody_keys: 'custody',
  custody_encryption_keys: 'custody',
  custody_secrets: 'custody',
  messages: 'history',
  message_sends: 'history',
  chat_sessions: 'history',
  chat_participants: 'history',
  chat_messages: 'history',
  chat_plaintext: 'history',
  control_signals: 'history',
  federation_outbox: 'history',
  app_events: 'history',
  documents: 'history',
  document_versions: 'history',
  present_links: 'history',
  docs_assets: 'history',
  docs_themes: 'history',
  blueprints: 'history',
  blueprint_versions: 'history',
  blueprint_profiles: 'history',
  shelf_profiles: 'history',
  shelf_versions: 'history',
  proposals: 'history',
  profile_bindings: 'history',
  search_mail: 'rebuilt',
  search_mail_terms: 'rebuilt',
  search_chat: 'rebuilt',
  search_chat_terms: 'rebuilt',
  search_documents: 'rebuilt',
  search_library: 'rebuilt',
  search_library_items: 'rebuilt',
  search_document_versions: 'rebuilt',
  search_backfill: 'rebuilt',
  search_pending: 'rebuilt',
  device_link_codes: 'local',
  device_ops: 'local',
  sync_clock: 'local',
  owner_sessions: 'local',
  owner_session_keys: 'local',
  replay_signatures: 'local',
  schema_migrations: 'local',
  sqlite_sequence: 'local',
};

/** The tables of the open database, virtual ones included and their shadow tables left out. */
export function schemaTables(db: Database): string[] {
  const rows = db.prepare(`SELECT name, type FROM pragma_table_list WHERE schema = 'main'`).all() as { name: string; type: string }[];
  return rows
    .filter((row) => (row.type === 'table' || row.type === 'virtual') && !row.name.startsWith('sqlite_schema') && row.name !== 'sqlite_temp_schema')
    .map((row) => row.name)
    .sort();
}

/** The kit's rows of every kit table, in foreign-key order (read inside one transaction, so they agree). */
export function readKitTables(db: Database): KitTable[] {
  return db.transaction(() =>
    KIT_TABLES.map(({ table, leaveOut }) => ({
      table,
      rows: db.prepare(`SELECT * FROM "${table}"${leaveOut === undefined ? '' : ` WHERE NOT (${leaveOut})`} ORDER BY rowid`).all() as StateRow[],
    })),
  )();
}

function columnsOf(db: Database, table: string): Set<string> {
  return new Set((db.prepare(`SELECT name FROM pragma_table_info(?)`).all(table) as { name: string }[]).map((row) => row.name));
}

/**
 * Inserts a kit's rows into a database that holds none of them (a fresh one). Foreign keys are
 * checked at the commit of the caller's transaction, so a table that references itself (an
 * identity's successor) comes in whole. Throws on a table or column this schema does not have.
 */
export function insertKitTables(db: Database, tables: readonly KitTable[]): void {
  if (!db.inTransaction) throw new Error('insertKitTables runs inside the restore transaction');
  db.pragma('defer_foreign_keys = ON');
  const order = new Map(KIT_TABLE_NAMES.map((table, index) => [table, index]));
  for (const { table, rows } of [...tables].sort((a, b) => (order.get(a.table) ?? 0) - (order.get(b.table) ?? 0))) {
    if (!order.has(table)) throw new Error(`the kit carries a table "${table}" that a kit does not hold`);
    const known = columnsOf(db, table);
    for (const row of rows) {
      const columns = Object.keys(row);
      const unknown = columns.find((column) => !known.has(column));
      if (unknown !== undefined) throw new Error(`the kit's ${table} rows have a column "${unknown}" this svc-node does not know`);
      const names = columns.map((column) => `"${column}"`).join(', ');
      db.prepare(`INSERT INTO "${table}" (${names}) VALUES (${columns.map(() => '?').join(', ')})`).run(...columns.map((column) => row[column]));
    }
  }
}

/** How many identities the node holds (every row of agents, the kit's count). */
export function countIdentities(tables: readonly KitTable[]): number {
  return tables.find((entry) => entry.table === 'agents')?.rows.length ?? 0;
}
