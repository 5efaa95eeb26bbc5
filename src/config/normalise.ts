/**
 * Checked input -> the normalised JobsFile the code uses: defaults applied, paths resolved
 * against the jobs file's directory, rates parsed, shorthands expanded. Runs only on input that
 * passed the schema and the rules, so it does not fail; it may add warnings.
 */
import { resolve } from 'node:path';
import type { Connection, FieldSpec, GuardsSpec, Job, JobsFile, MessageSpec, MetricsSpec, NotifySpec, OnMissingSpec, PrivacySpec, RetentionSpec, Transform, VerifySpec } from './job-types.js';
import { CONFIG_DEFAULTS, defaultStatePath } from './defaults.js';
import { parseDelimiter } from './delimiter.js';
import { parseRate } from './rate.js';
import type { ConnectionParsed, FieldSourceParsed, JobParsed, JobsFileParsed, TransformParsed } from './schema.js';
import type { PathIssue } from './schema-issues.js';
import { parseTemplate } from './template-placeholders.js';
import { formatYamlPath, type YamlPath } from './yaml-path.js';
import { parseDuration } from './duration.js';
import { ATTACHMENT_TYPES } from '../limits.js';
import { parseMaxErrors } from './max-errors.js';
import { parseMissingShare, parseVerifyShare } from './missing-share.js';
import { isLoopbackHost } from './loopback-host.js';
import { DEFAULT_STATE_SCHEMA, stateOfText, type StateSpec } from './state-location.js';

export interface NormaliseContext {
  /** Absolute path of the jobs file. */
  file: string;
  /** Directory that relative paths are resolved against. */
  baseDir: string;
  /** Token of each connection, read from `token` or `tokenFile`. */
  tokens: Readonly<Record<string, string>>;
}

export function normaliseJobsFile(parsed: JobsFileParsed, context: NormaliseContext): { jobsFile: JobsFile; warnings: PathIssue[] } {
  const warnings: PathIssue[] = [];
  const connections: Record<string, Connection> = {};
  for (const [name, connection] of Object.entries(parsed.connections)) {
    connections[name] = normaliseConnection(name, connection, context, warnings);
  }
  const jobs = parsed.jobs.map((job, index) => {
    const connection = connections[job.connection];
    // The rules reported an unknown connection before normalising.
    if (connection === undefined) throw new Error(`internal: job ${job.name} names unknown connection ${job.connection}`);
    return normaliseJob(job, connection, context, ['jobs', index], warnings);
  });
  const metrics = normaliseMetrics(parsed.metrics, context);
  if (metrics !== undefined) for (const job of jobs) job.metrics = metrics;
  // A job's own retention wins over the file's.
  const retention = normaliseRetention(parsed.retention, ['retention']);
  if (retention !== undefined) for (const job of jobs) job.retention ??= retention;
  parsed.jobs.forEach((input, index) => {
    const privacy = normalisePrivacy(jobs[index]!, parsed.privacy?.mask ?? [], input.privacy?.mask ?? []);
    if (privacy !== undefined) jobs[index]!.privacy = privacy;
  });
  return { jobsFile: { path: context.file, connections, jobs, ...(metrics === undefined ? {} : { metrics }) }, warnings };
}

function normaliseConnection(name: string, input: ConnectionParsed, context: NormaliseContext, warnings: PathIssue[]): Connection {
  const baseUrl = input.baseUrl.replace(/\/+$/, '');
  if (input.api !== 'v2' && /\/v1$/.test(baseUrl)) {
    warnings.push({
      path: ['connections', name, 'baseUrl'],
      message: `ends with /v1, and request paths already start with /v1/; write the API root: ${baseUrl.replace(/\/v1$/, '')}`,
    });
  }
  const rateLimits: Connection['rateLimits'] = {
    contacts: parseRate(input.rateLimits?.contacts ?? CONFIG_DEFAULTS.contactsRate),
    messages: parseRate(input.rateLimits?.messages ?? CONFIG_DEFAULTS.messagesRate),
  };
  if (input.rateLimits?.redis !== undefined) rateLimits.redis = input.rateLimits.redis;
  // On v2 the limits are learnt; a rate the file states is a ceiling over them, the defaults none.
  const ceilings =
    input.api !== 'v2'
      ? undefined
      : {
          ...(input.rateLimits?.contacts === undefined ? {} : { contacts: rateLimits.contacts }),
          ...(input.rateLimits?.messages === undefined ? {} : { messages: rateLimits.messages }),
        };
  return {
    name,
    baseUrl,
    token: context.tokens[name] ?? '',
    channelType: input.channelType ?? CONFIG_DEFAULTS.channelType,
    api: input.api ?? CONFIG_DEFAULTS.api,
    organisation: input.organisation ?? name,
    ...(input.channelId === undefined ? {} : { channelId: input.channelId }),
    ...(ceilings === undefined ? {} : { ceilings }),
    rateLimits,
    allowInsecure: input.allowInsecure ?? CONFIG_DEFAULTS.allowInsecure,
    timeouts: normaliseTimeouts(input.timeouts),
    ...(input.notify === undefined ? {} : { notify: normaliseNotify(input.notify, ['connections', name, 'notify'], warnings) }),
  };
}

/**
 * A webhook's or a heartbeat's URL carries its secret (its path or query): sent in clear over
 * `http://` to a host other than loopback, anyone on the way can read it and post or ping in the
 * job's name. Allowed (a sink inside a private network), but said (issue 42). The message shows
 * the origin only.
 */
function notifyProblems(input: NonNullable<ConnectionParsed['notify']>, path: YamlPath, warnings: PathIssue[]): void {
  for (const key of ['webhook', 'heartbeat'] as const) {
    const value = input[key];
    if (value === undefined || !URL.canParse(value)) continue;
    const url = new URL(value);
    if (url.protocol !== 'http:' || isLoopbackHost(url.hostname)) continue;
    warnings.push({ path: [...path, key], message: `sends its URL, and the secret in its path or query, in clear over http:// to ${url.host}; use https:// (${url.host} must serve it), or keep the ${key} on this host` });
  }
}

function normaliseNotify(input: NonNullable<ConnectionParsed['notify']>, path: YamlPath, warnings: PathIssue[]): NotifySpec {
  notifyProblems(input, path, warnings);
  return {
    ...(input.webhook === undefined ? {} : { webhook: input.webhook }),
    on: input.on ?? CONFIG_DEFAULTS.notifyOn,
    ...(input.heartbeat === undefined ? {} : { heartbeat: input.heartbeat }),
  };
}

function normaliseMetrics(input: JobsFileParsed['metrics'], context: NormaliseContext): MetricsSpec | undefined {
  if (input === undefined || (input.textfile === undefined && input.pushgateway === undefined)) return undefined;
  return {
    ...(input.textfile === undefined ? {} : { textfile: resolve(context.baseDir, input.textfile) }),
    ...(input.pushgateway === undefined ? {} : { pushgateway: input.pushgateway }),
  };
}

/**
 * A job's masked fields: the top-level list's (those the job maps: a file's list names the fields
 * of all its jobs) and the job's own (the rules checked that the job maps each), each once.
 */
function normalisePrivacy(job: Job, fileMask: readonly string[], jobMask: readonly string[]): PrivacySpec | undefined {
  const mapped = new Set([job.key.field, ...job.fields.map((field) => field.name)].filter((name) => name !== ''));
  const mask = unique([...fileMask.filter((name) => mapped.has(name)), ...jobMask]);
  return mask.length === 0 ? undefined : { mask };
}

/** The schema checked every duration: a default or a checked value is always readable. */
function normaliseTimeouts(input: ConnectionParsed['timeouts']): Connection['timeouts'] {
  const ms = (text: string | undefined, fallback: string): number => parseDuration(text ?? fallback) ?? 0;
  return {
    requestMs: ms(input?.request, CONFIG_DEFAULTS.requestTimeout),
    maxPages: input?.maxPages ?? CONFIG_DEFAULTS.maxPages,
    maxRetryAfterMs: ms(input?.maxRetryAfter, CONFIG_DEFAULTS.maxRetryAfter),
    unavailableAfterAttempts: input?.unavailableAfterAttempts ?? CONFIG_DEFAULTS.unavailableAfterAttempts,
    unavailableAfterMs: ms(input?.unavailableAfter, CONFIG_DEFAULTS.unavailableAfter),
  };
}

function normaliseJob(input: JobParsed, connection: Connection, context: NormaliseContext, path: YamlPath, warnings: PathIssue[]): Job {
  const inputSpec = typeof input.input === 'string' ? { path: input.input } : input.input;
  const message = input.message === undefined ? undefined : normaliseMessage(input.message, [...path, 'message'], warnings);
  const job: Job = {
    name: input.name,
    connection,
    input: {
      path: resolve(context.baseDir, inputSpec.path),
      delimiter: parseDelimiter(inputSpec.delimiter ?? CONFIG_DEFAULTS.delimiter) ?? CONFIG_DEFAULTS.delimiter,
      encoding: inputSpec.encoding ?? CONFIG_DEFAULTS.encoding,
    },
    // Without a key (mode: message), rows name their contact id directly; nothing is searched.
    key: input.key ?? { column: message?.contactIdColumn ?? '', field: '' },
    mode: input.mode ?? CONFIG_DEFAULTS.mode,
    onDuplicate: input.onDuplicate ?? CONFIG_DEFAULTS.onDuplicate,
    onDuplicateRows: input.onDuplicateRows ?? CONFIG_DEFAULTS.onDuplicateRows,
    fields: Object.entries(input.fields ?? {}).map(([name, source]) => normaliseField(name, source)),
    emptyValues: input.emptyValues ?? CONFIG_DEFAULTS.emptyValues,
    tags: {
      separator: input.tags?.separator ?? CONFIG_DEFAULTS.tagSeparator,
      static: unique(input.tags?.static ?? []),
      remove: unique(input.tags?.remove ?? []),
      prune: input.tags?.prune ?? false,
    },
    match: {},
    state: normaliseState(input.state, input.name, context.baseDir),
    concurrency: input.concurrency ?? CONFIG_DEFAULTS.concurrency,
  };
  if (input.tags?.column !== undefined) job.tags.column = input.tags.column;
  if (input.tags?.case === 'lower') job.tags.case = 'lower';
  const owned = input.tags?.owned;
  if (owned !== undefined && input.tags?.prune !== true) {
    warnings.push({ path: [...path, 'tags', 'owned'], message: 'is used only with prune: true; set tags.prune: true, or remove it' });
  }
  if (owned !== undefined) job.tags.owned = Array.isArray(owned) ? { kind: 'list', tags: unique(owned) } : { kind: 'prefix', prefix: owned.prefix };
  if (input.onMissing !== undefined) job.onMissing = normaliseOnMissing(input.onMissing);
  if (input.guards !== undefined) job.guards = normaliseGuards(input.guards);
  if (input.verify !== undefined) job.verify = normaliseVerify(input.verify);
  if (input.match?.prefetch !== undefined) job.match.prefetch = { ...input.match.prefetch };
  if (message !== undefined) job.message = message;
  const maxErrors = normaliseMaxErrors(input.maxErrors);
  if (maxErrors !== undefined) job.maxErrors = maxErrors;
  const notify = input.notify === undefined ? connection.notify : normaliseNotify(input.notify, [...path, 'notify'], warnings);
  if (notify !== undefined) job.notify = notify;
  const retention = normaliseRetention(input.retention, [...path, 'retention']);
  if (retention !== undefined) job.retention = retention;
  return job;
}

/** The schema checked the duration: a given one is always readable. */
function normaliseRetention(input: JobsFileParsed['retention'], path: YamlPath): RetentionSpec | undefined {
  if (input?.journal === undefined) return undefined;
  return { journal: input.journal, journalMs: parseDuration(input.journal) ?? 0, setAt: formatYamlPath([...path, 'journal']) };
}

/** A file resolved against the jobs file's folder; a URL (never a path) or `{url, schema}` a PostgreSQL state. */
function normaliseState(state: JobParsed['state'], name: string, baseDir: string): StateSpec {
  if (state === false) return false;
  if (typeof state === 'object') return { kind: 'postgres', url: state.url.trim(), schema: state.schema ?? DEFAULT_STATE_SCHEMA };
  const spec = stateOfText(state ?? defaultStatePath(name));
  return typeof spec === 'string' ? resolve(baseDir, spec) : spec;
}

function normaliseField(name: string, source: FieldSourceParsed): FieldSpec {
  if (typeof source === 'string') return { name, source: { kind: 'column', column: source }, transforms: [{ kind: 'trim' }] };
  if ('value' in source) return withWriteRule({ name, source: { kind: 'value', value: source.value }, transforms: [] }, source.write);
  const listed = source.transform === undefined ? [] : Array.isArray(source.transform) ? source.transform : [source.transform];
  const trim = source.trim ?? CONFIG_DEFAULTS.trim;
  const transforms = listed.map(normaliseTransform);
  // Trim comes first unless the user turned it off; a listed trim is then redundant.
  const ordered: Transform[] = trim ? [{ kind: 'trim' }, ...transforms.filter((t) => t.kind !== 'trim')] : transforms;
  const spec: FieldSpec =
    'column' in source
      ? { name, source: { kind: 'column', column: source.column }, transforms: ordered }
      : { name, source: { kind: 'template', template: source.template, columns: parseTemplate(source.template).columns }, transforms: ordered };
  if (source.default !== undefined) spec.default = source.default;
  if (source.onInvalid === 'skip-field') spec.onInvalid = 'skip-field';
  if (source.onEmpty !== undefined) spec.onEmpty = source.onEmpty;
  return withWriteRule(spec, source.write);
}

/** `write: always` is the default and left out, so a job that writes it keeps its mapping fingerprint. */
function withWriteRule(spec: FieldSpec, write: 'always' | 'fill-empty' | 'on-create' | undefined): FieldSpec {
  if (write !== undefined && write !== 'always') spec.write = write;
  return spec;
}

function normaliseTransform(input: TransformParsed): Transform {
  if (typeof input === 'string') return { kind: input };
  if ('phone' in input) {
    const phone: Transform = { kind: 'phone' };
    if (input.phone.defaultCountry !== undefined) phone.defaultCountry = input.phone.defaultCountry.toUpperCase();
    if (input.phone.country !== undefined) phone.countryColumn = input.phone.country.column;
    if (input.phone.extensionField !== undefined) phone.extensionField = input.phone.extensionField;
    return phone;
  }
  return { kind: 'map', map: { ...input.map } };
}

function normaliseMessage(input: NonNullable<JobParsed['message']>, path: YamlPath, warnings: PathIssue[]): MessageSpec {
  const type = input.type ?? CONFIG_DEFAULTS.messageType;
  const isAttachment = (ATTACHMENT_TYPES as readonly string[]).includes(type);
  if (isAttachment && input.text !== undefined) {
    warnings.push({ path: [...path, 'text'], message: `is not sent with type: ${type}; remove it, or send a text message in another job` });
  }
  if (type === 'whatsapp_template' && input.text !== undefined) {
    warnings.push({ path: [...path, 'text'], message: 'is not sent with type: whatsapp_template; remove it: the text sent is template.body' });
  }
  if (!isAttachment && input.url !== undefined) {
    warnings.push({ path: [...path, 'url'], message: `is not sent with type: ${type}; remove it, or set type: image, video, audio or file` });
  }
  const message: MessageSpec = {
    when: input.when ?? CONFIG_DEFAULTS.messageWhen,
    type,
    quickReplies: input.quickReplies ?? [],
    forceCancelSurvey: input.forceCancelSurvey ?? CONFIG_DEFAULTS.forceCancelSurvey,
    repeat: input.repeat ?? CONFIG_DEFAULTS.repeat,
  };
  if (input.text !== undefined) message.text = input.text;
  if (input.url !== undefined) message.url = input.url;
  if (input.contactIdColumn !== undefined) message.contactIdColumn = input.contactIdColumn;
  if (input.channelId !== undefined) message.channelId = input.channelId;
  if (input.template !== undefined) message.template = { ...input.template };
  return message;
}

function normaliseOnMissing(input: NonNullable<JobParsed['onMissing']>): OnMissingSpec {
  // The schema has refused a share that does not parse.
  const share = parseMissingShare(input.maxShare ?? CONFIG_DEFAULTS.onMissingMaxShare);
  return {
    action: input.action ?? CONFIG_DEFAULTS.onMissingAction,
    tags: unique(input.tags ?? []),
    fields: { ...(input.fields ?? {}) },
    maxSharePercent: 'ok' in share ? share.ok : 0,
  };
}

function normaliseVerify(input: NonNullable<JobParsed['verify']>): VerifySpec {
  // The schema has refused a share that does not parse.
  const share = parseVerifyShare(input.share);
  return { sharePercent: 'ok' in share ? share.ok : 0 };
}

function normaliseGuards(input: NonNullable<JobParsed['guards']>): GuardsSpec {
  const guards: GuardsSpec = {};
  if (input.minRows !== undefined) guards.minRows = input.minRows;
  // The schema has refused a share that does not parse.
  const share = input.maxChange === undefined ? undefined : parseMissingShare(input.maxChange);
  if (share !== undefined && 'ok' in share) guards.maxChangePercent = share.ok;
  return guards;
}

function normaliseMaxErrors(input: JobParsed['maxErrors']): Job['maxErrors'] {
  if (input === undefined) return undefined;
  // The schema has refused what does not parse.
  const parsed = parseMaxErrors(input);
  return 'ok' in parsed ? parsed.ok : undefined;
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}
