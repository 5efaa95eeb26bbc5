/**
 * Normalised configuration: what the code uses after `jobs.yaml` was parsed, interpolated,
 * defaulted and checked. The input shape (what a user writes) is the zod schema in schema.ts.
 */
import type { ChannelType } from '../api/wire-types.js';
import type { Rate } from '../limits.js';
import type { MaxErrors } from './max-errors.js';
import type { StateSpec } from './state-location.js';

export type { PostgresState, StateSpec } from './state-location.js';

export interface Connection {
  /** Key under `connections:` in jobs.yaml. */
  name: string;
  /** API root; request paths start with `/v1/`. No trailing slash. */
  baseUrl: string;
  /** Channel token. Never logged, reported or put in an error message. */
  token: string;
  channelType: ChannelType;
  /** The platform surface the connection speaks (`api:`). */
  api: 'v1' | 'v2';
  /** v2: the organisation whose per-endpoint budget the connection shares (`organisation:`, default its name). */
  organisation: string;
  /** v2: `channelId` of sends, null for the contact's last channel; undefined when not given. */
  channelId?: number | null;
  /**
   * v2: the rates `rateLimits.contacts` and `rateLimits.messages` state, when the jobs file gives
   * them: a ceiling per endpoint over what the answers teach (v2's limits are learnt, not configured).
   */
  ceilings?: { contacts?: Rate; messages?: Rate };
  rateLimits: { contacts: Rate; messages: Rate; redis?: string };
  /** Allow `http://` to a host other than loopback. @default false */
  allowInsecure: boolean;
  /** `timeouts:` in milliseconds (docs/configuration.md). */
  timeouts: ConnectionTimeouts;
  /** `notify:`, the default of the connection's jobs. */
  notify?: NotifySpec;
}

/** Who is told how a job went (docs/operations.md, "Watching unattended runs"); at least one of the two URLs. */
export interface NotifySpec {
  /** Told when the job ends. May hold a secret in its path (Slack's do): only its origin is ever logged. */
  webhook?: string;
  /** When the webhook is told; `failure`: only when the job's exit code is not 0. @default 'failure' */
  on: 'failure' | 'always';
  /** A cron monitor's ping URL (`/start`, itself, `/fail`); its path and query are its secret: only its origin is logged. */
  heartbeat?: string;
}

/** `metrics:` of the jobs file: where each job's figures go when it ends. */
/** `privacy:` as a job has it (issue 45). */
export interface PrivacySpec {
  /** Field names, each once, each one the job maps. */
  mask: string[];
}

export interface MetricsSpec {
  /** A .prom file for node_exporter's textfile collector (resolved). */
  textfile?: string;
  /** A Prometheus Pushgateway's URL. */
  pushgateway?: string;
}

export interface ConnectionTimeouts {
  requestMs: number;
  maxPages: number;
  maxRetryAfterMs: number;
  unavailableAfterAttempts: number;
  unavailableAfterMs: number;
}

export type Transform =
  | { kind: 'trim' }
  | { kind: 'lowercase' }
  | { kind: 'uppercase' }
  /**
   * E.164 through libphonenumber-js; `defaultCountry` is an ISO 3166 alpha-2 code. With
   * `countryColumn`, a row's own country (a code or a name) comes first, the default after.
   */
  | {
      kind: 'phone';
      defaultCountry?: string;
      countryColumn?: string;
      /** The custom field a number's extension is written to; without it the extension is named in results.csv's warnings. */
      extensionField?: string;
    }
  | { kind: 'email' }
  /** Replace a value found in `map`; values not in it are kept. */
  | { kind: 'map'; map: Record<string, string> };

export type FieldSource =
  | { kind: 'column'; column: string }
  | { kind: 'value'; value: string }
  /** `{{column}}` placeholders; `columns` lists them in order of appearance. */
  | { kind: 'template'; template: string; columns: string[] };

export interface FieldSpec {
  /** Custom field name on the platform. */
  name: string;
  source: FieldSource;
  /** Applied in order. `trim` is first unless the user set `trim: false`. */
  transforms: Transform[];
  /** Used when the value is empty after the transforms. */
  default?: string;
  /**
   * `skip-field`: a value the transforms refuse leaves this field out of the row's write (reported
   * in results.csv's `fields_skipped`) instead of failing the row. Absent: the row fails.
   */
  onInvalid?: 'skip-field';
  /**
   * When the field is written to a contact that exists: `fill-empty` only where the platform's
   * value is empty (an agent's value wins), `on-create` never (only when the contact is created).
   * Absent: always, whenever the file's value differs.
   */
  write?: 'fill-empty' | 'on-create';
  /** An empty cell: `clear` writes "", `keep` leaves the platform's value. Absent: the job's `emptyValues`. */
  onEmpty?: 'keep' | 'clear';
}

/** A field's write rule other than the default (`always`), as a draft carries it. */
export type WriteRule = NonNullable<FieldSpec['write']>;

export type JobMode = 'upsert' | 'create' | 'update' | 'message';
export type OnDuplicate = 'fail' | 'oldest' | 'newest' | 'all';
/** What to do with the rows of a key that is on several rows of the file (map/duplicate-rows.ts). */
export type OnDuplicateRows = 'last' | 'first' | 'merge' | 'fail';

export interface InputSpec {
  /** Path of the CSV (plain or gzipped), resolved against the directory of jobs.yaml; `--input` replaces it. */
  path: string;
  /** How messages name the input when the path would mislead (`standard input` for `--input -`). @default path */
  label?: string;
  /** One character, or `auto` to detect `,` `;` tab `|` from the header. */
  delimiter: string;
  /** A label iconv-lite knows: utf-8, latin1, windows-1252, utf-16le... */
  encoding: string;
}

export interface TagSpec {
  /** Column holding the row's tags, split by `separator`. */
  column?: string;
  separator: string;
  /** Added to every row. */
  static: string[];
  /** Removed from every row's contact (when present). */
  remove: string[];
  /**
   * Remove from a contact the tags this job set on it before (known from the state store) or that
   * `owned` names, when its row no longer carries them. Tags the job never set are never removed.
   * @default false
   */
  prune: boolean;
  /** The tags this job owns for `prune`: a list, or every tag starting with a prefix. */
  owned?: TagOwnership;
  /** `lower`: the column's tags lowercased (`VIP;vip` is one tag, `vip`). Absent: kept as written. */
  case?: 'lower';
}

export type TagOwnership = { kind: 'list'; tags: string[] } | { kind: 'prefix'; prefix: string };

/**
 * `onMissing`: what a complete run does with the keys an earlier run synced (the state store
 * knows them) that its input no longer has. See docs/state.md, "Keys that leave the file".
 */
export interface OnMissingSpec {
  /** `keep` changes nothing (the keys are listed in departed.csv). @default 'keep' */
  action: 'keep' | 'tag' | 'untag' | 'update';
  /** `tag` adds them, `untag` removes them. */
  tags: string[];
  /** `update` sets these custom fields. */
  fields: Record<string, string>;
  /** Percent of the known keys: more missing than this refuses the step (exit 1). @default 10 */
  maxSharePercent: number;
}

/** `guards:`: what refuses a run before its first write, unless `--allow NAME` (docs/configuration.md, "Guards"). */
export interface GuardsSpec {
  /** The fewest data rows the input may have. @default none */
  minRows?: number;
  /** Percent of the keys the state store knows that may change or clear one field. @default none */
  maxChangePercent?: number;
}

/** `verify:`: verification within the budget (docs/configuration.md, "Verification"; docs/state.md). */
export interface VerifySpec {
  /** Percent of the keys the state trusts: the most contacts (calls) a run re-reads. */
  sharePercent: number;
}

export interface MatchSpec {
  /** Page through this field = value once to build the key index instead of a search per row. */
  prefetch?: { field: string; value: string };
}

/**
 * A WhatsApp message template, each part a template of its own (`{{column}}` placeholders filled
 * from the row): the template's name and language as approved, and the text of its body.
 */
export interface MessageTemplateSpec {
  name: string;
  /** WhatsApp's language code of the approved template, `en`, `en_US`. */
  language: string;
  body: string;
}

export interface MessageSpec {
  when: 'created' | 'updated' | 'changed' | 'always';
  type: 'text' | 'image' | 'video' | 'audio' | 'file' | 'quick_reply' | 'whatsapp_template';
  text?: string;
  url?: string;
  quickReplies: string[];
  /** `whatsapp_template` only: the approved template to send. */
  template?: MessageTemplateSpec;
  forceCancelSurvey: boolean;
  repeat: boolean;
  /** For `mode: message`: column holding the contact id. */
  contactIdColumn?: string;
  /** v2: the channel of this job's sends, null for the contact's last; overrides the connection's. Undefined when not given. */
  channelId?: number | null;
}

export interface Job {
  name: string;
  connection: Connection;
  input: InputSpec;
  /**
   * Column and custom field identifying a row's contact. For `mode: message` without a key it is
   * `{column: message.contactIdColumn, field: ''}`: rows hold the contact id, nothing is searched.
   */
  key: { column: string; field: string };
  mode: JobMode;
  onDuplicate: OnDuplicate;
  /**
   * A key on several rows of the file: `last` / `first` applies that row and skips the others,
   * `merge` folds them into one, `fail` fails them all. Not used with `mode: message` (each row is
   * a message). @default 'last'
   */
  onDuplicateRows: OnDuplicateRows;
  /** The key field is not in this list; the mapper writes it on create. */
  fields: FieldSpec[];
  /** `ignore`: an empty cell leaves the platform's value alone; `clear`: writes "". */
  emptyValues: 'ignore' | 'clear';
  tags: TagSpec;
  match: MatchSpec;
  message?: MessageSpec;
  /** Keys that left the file; absent: nothing is done about them. */
  onMissing?: OnMissingSpec;
  /** `guards:`, checked before the first write and on dry runs. */
  guards?: GuardsSpec;
  /** `verify:`: after the rows, re-read a share of the contacts the state trusts and repair drift. */
  verify?: VerifySpec;
  /**
   * Where the state lives: a SQLite file's path (resolved), a PostgreSQL database
   * (`{kind: 'postgres', url, schema}`), or false for none (`state-location.ts`).
   */
  state: StateSpec;
  /** Rows in flight at once. @default 8 */
  concurrency: number;
  /** Abort when failed rows exceed this count, or this share of the rows (`percent`: 0 to 100, `"5%"` -> 5). */
  maxErrors?: MaxErrors;
  /** The job's `notify:`, or else its connection's. */
  notify?: NotifySpec;
  /** The jobs file's `metrics:` (the same for every job of the file). */
  metrics?: MetricsSpec;
  /**
   * `privacy:`: the fields (of those the job maps, its key field included) whose values the run's
   * outputs show masked: the top-level list's and the job's own together. Absent: nothing masked.
   */
  privacy?: PrivacySpec;
  /** The job's `retention:`, or else the jobs file's; absent: the change journal is kept for ever. */
  retention?: RetentionSpec;
}

/** `retention:` (docs/personal-data.md): how long the job's state store keeps people's values. */
export interface RetentionSpec {
  /** `retention.journal` as written (`90d`). */
  journal: string;
  /** The same in ms: a run's change lines are deleted once the run started longer ago. */
  journalMs: number;
  /** Where it was set, as a YAML path (`jobs[0].retention.journal`, `retention.journal`), for the messages that name it. */
  setAt: string;
}

export interface JobsFile {
  /** Absolute path of the jobs file, for messages. */
  path: string;
  connections: Record<string, Connection>;
  jobs: Job[];
  metrics?: MetricsSpec;
}
