/**
 * The tables of a job's state as `state copy` moves them (state-port.ts `StateTransfer`): SQLite's
 * table and column names are the format (schema.ts), in this order; the PostgreSQL adapter's
 * table of each (postgres/pg-schema.ts) and the type of each column there. The SQLite file's
 * identity (meta's `job`, `key_field`, `created_at`) is not state: the target store keeps its own.
 */

/** One table of the state, as both stores hold it. */
export interface StateTable {
  /** SQLite's name: the page's `table`. */
  readonly sqlite: string;
  /** The PostgreSQL adapter's table. */
  readonly pg: string;
  /** Columns (SQLite's names) and their PostgreSQL type. */
  readonly columns: ReadonlyArray<readonly [name: string, pgType: string]>;
  /** The primary key (of the job's rows): the export's order. */
  readonly key: readonly string[];
  /** SQL condition (`AND ...`) an exported row meets. */
  readonly exportWhere?: string;
  /** Whether an imported row is state (not identity). */
  readonly importFilter?: (row: Readonly<Record<string, unknown>>) => boolean;
}

/** meta's rows that say whose file it is: never copied. */
export const IDENTITY_META: readonly string[] = ['job', 'key_field', 'created_at'];

export const STATE_TABLES: readonly StateTable[] = [
  {
    sqlite: 'meta',
    pg: 'meta',
    columns: [
      ['name', 'text'],
      ['value', 'text'],
    ],
    key: ['name'],
    exportWhere: `AND name NOT IN (${IDENTITY_META.map((name) => `'${name}'`).join(', ')})`,
    importFilter: (row) => !IDENTITY_META.includes(String(row.name)),
  },
  {
    sqlite: 'contacts',
    pg: 'contacts',
    columns: [
      ['key', 'text'],
      ['contact_id', 'text'],
      ['fields_json', 'text'],
      ['tags_json', 'text'],
      ['draft_hash', 'text'],
      ['updated_at', 'bigint'],
      ['job_tags_json', 'text'],
      ['row_hash', 'text'],
      ['surface', 'text'],
      ['verified_at', 'bigint'],
    ],
    key: ['key'],
  },
  {
    sqlite: 'pending_creates',
    pg: 'pending_creates',
    columns: [
      ['key', 'text'],
      ['marked_at', 'bigint'],
      ['run_id', 'bigint'],
    ],
    key: ['key'],
  },
  {
    sqlite: 'messages',
    pg: 'state_messages',
    columns: [
      ['contact_id', 'text'],
      ['message_hash', 'text'],
      ['status', 'text'],
      ['recorded_at', 'bigint'],
      ['message_id', 'text'],
    ],
    key: ['contact_id', 'message_hash'],
  },
  {
    sqlite: 'messages_due',
    pg: 'messages_due',
    columns: [
      ['key', 'text'],
      ['recorded_at', 'bigint'],
    ],
    key: ['key'],
  },
  {
    sqlite: 'runs',
    pg: 'state_runs',
    columns: [
      ['id', 'bigint'],
      ['job', 'text'],
      ['started_at', 'bigint'],
      ['argv', 'text'],
      ['full', 'smallint'],
      ['finished_at', 'bigint'],
      ['rows_json', 'text'],
      ['exit_code', 'integer'],
      ['status', 'text'],
      ['pruned_at', 'bigint'],
      ['surface', 'text'],
      ['journal_expired_at', 'bigint'],
      ['report_dir', 'text'],
    ],
    key: ['id'],
  },
  {
    sqlite: 'departed',
    pg: 'departed',
    columns: [
      ['key', 'text'],
      ['contact_id', 'text'],
      ['action', 'text'],
      ['tags_json', 'text'],
      ['departed_at', 'bigint'],
      ['surface', 'text'],
    ],
    key: ['key'],
  },
  {
    sqlite: 'changes',
    pg: 'state_changes',
    columns: [
      ['id', 'bigint'],
      ['run_id', 'bigint'],
      ['key', 'text'],
      ['contact_id', 'text'],
      ['operation', 'text'],
      ['changes_json', 'text'],
      ['recorded_at', 'bigint'],
      ['before_read', 'smallint'],
    ],
    key: ['id'],
  },
  {
    sqlite: 'absent_reads',
    pg: 'absent_reads',
    columns: [
      ['key', 'text'],
      ['run_id', 'bigint'],
      ['read_at', 'bigint'],
    ],
    key: ['key'],
  },
  {
    sqlite: 'uncreatable_rows',
    pg: 'uncreatable_rows',
    columns: [
      ['key', 'text'],
      ['row_hash', 'text'],
      ['surface', 'text'],
      ['code', 'text'],
      ['message', 'text'],
      ['recorded_at', 'bigint'],
    ],
    key: ['key'],
  },
  {
    sqlite: 'learnt_limits',
    pg: 'learnt_limits',
    columns: [
      ['budget', 'text'],
      ['calls', 'integer'],
      ['period_ms', 'bigint'],
      ['learnt_at', 'bigint'],
    ],
    key: ['budget'],
  },
];
