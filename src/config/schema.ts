/**
 * The input schema of jobs.yaml: what a user writes, after `${VAR}` interpolation. Strict objects
 * (unknown keys are errors), every key described (the descriptions become the JSON Schema that
 * editors show, and the "write ..." part of error messages). Defaults are shown here but applied
 * by normalise.ts; cross-key checks live in rules.ts.
 *
 * Interpolation always yields strings, so numbers and booleans also accept their string forms:
 * the JSON Schema says so too.
 */
import iconv from 'iconv-lite';
import { isSupportedCountry } from 'libphonenumber-js';
import { z } from 'zod';
import { BASE_URL_FORM, baseUrlProblems } from '../api/base-url.js';
import { stripUrlAuth, urlOriginOnly } from '../api/strip-url-auth.js';
import { MAX_QUICK_REPLIES, MAX_QUICK_REPLY_LENGTH } from '../limits.js';
import { CONCURRENCY_RANGE, CONFIG_DEFAULTS } from './defaults.js';
import { parseDelimiter } from './delimiter.js';
import { parseMaxErrors } from './max-errors.js';
import { parseMissingShare, parseVerifyShare } from './missing-share.js';
import { DURATION_FORMS, parseDuration, RETENTION_FORMS } from './duration.js';
import { parseRate, RATE_FORMS, RATE_PATTERN } from './rate.js';
import { parseTemplate } from './template-placeholders.js';
import { DEFAULT_STATE_SCHEMA, looksLikeUrl, STATE_FORMS, STATE_SCHEMA_PATTERN, stateUrlProblem } from './state-location.js';

/** Job names name report and state files. */
export const JOB_NAME_PATTERN = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

const show = (value: unknown): string => JSON.stringify(value);

const envBoolean = z
  .union([z.boolean(), z.enum(['true', 'false'])])
  .transform((value) => value === true || value === 'true');

/** Strings, numbers and booleans all become the string the platform stores. */
const scalarText = z.union([z.string(), z.number(), z.boolean()]).transform(String);

const nonEmpty = (what: string) => z.string().min(1, { error: `is empty; write ${what}` });

function envInteger(what: string, min: number, max: number) {
  const range = `${what} must be a whole number from ${min} to ${max}`;
  return z
    .union([
      z.number().int({ error: (issue) => `${show(issue.input)} is not a whole number; ${range}` }),
      z.string().regex(/^\s*\d+\s*$/, { error: (issue) => `${show(issue.input)} is not a whole number; ${range}` }),
    ])
    .transform(Number)
    .pipe(
      z
        .number()
        .min(min, { error: (issue) => `${show(issue.input)} is too small; ${range}` })
        .max(max, { error: (issue) => `${show(issue.input)} is too large; ${range}` }),
    );
}

const rate = z
  .string()
  .regex(RATE_PATTERN, { error: (issue) => `${show(issue.input)} is not a rate; write ${RATE_FORMS}, e.g. 100/min` })
  .superRefine((text, ctx) => {
    try {
      parseRate(text);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: (error as Error).message });
    }
  });

/** Why `text` is not a URL of one of `protocols`, ending with what to write instead; undefined when it is one. */
export function urlProblem(text: string, protocols: readonly string[], what: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `is not a URL; write ${what}`;
  }
  if (!protocols.includes(url.protocol)) return `uses ${url.protocol.replace(/:$/, '')}; write ${what}`;
  return undefined;
}

const baseUrl = z
  .string()
  .superRefine((text, ctx) => {
    for (const problem of baseUrlProblems(text)) ctx.addIssue({ code: 'custom', message: `${show(stripUrlAuth(text))} ${problem}` });
  })
  .meta({ description: `${BASE_URL_FORM} (request paths /v1/... are appended)`, examples: ['https://app.example.com/api'] });

/**
 * A URL of one of `protocols` (`what` says which); its user and password, if any, never shown in
 * a message, nor more than its origin when `shown` says so.
 */
function urlOf(protocols: readonly string[], what: string, shown: (text: string) => string = stripUrlAuth) {
  return z.string().superRefine((text, ctx) => {
    const problem = urlProblem(text, protocols, what);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: `${show(shown(text))} ${problem}` });
  });
}

const redisUrl = urlOf(['redis:', 'rediss:'], 'a redis:// or rediss:// URL');

/** An http(s) URL: a webhook, a Pushgateway. Their path or query is often the secret: a message shows the origin only, as the runtime warnings do. */
const httpUrl = (what: string) => urlOf(['http:', 'https:'], what, urlOriginOnly);

/** `notify:` on a job, or on a connection for its jobs (docs/operations.md, "Watching unattended runs"). */
const notify = z
  .strictObject({
    webhook: httpUrl('an http:// or https:// URL, e.g. a Slack incoming webhook')
      .optional()
      .meta({ description: 'the URL that receives one JSON POST {text, summary, exitCode} when the job ends' }),
    on: z
      .enum(['failure', 'always'])
      .optional()
      .meta({ description: 'when the webhook is told: failure (an exit code other than 0) or always', default: CONFIG_DEFAULTS.notifyOn }),
    heartbeat: httpUrl('an http:// or https:// URL of a cron monitor\'s check, e.g. https://hc-ping.com/<uuid>')
      .optional()
      .meta({ description: 'a cron monitor\'s ping URL: GET URL/start when the job starts, URL when it ends 0 or 1, URL/fail otherwise' }),
  })
  .meta({ description: 'who is told how the job went: {webhook: URL, on: failure | always, heartbeat: URL}' });

/** `metrics:` at the top of jobs.yaml: where every job's figures go after it ends. */
const metrics = z
  .strictObject({
    textfile: nonEmpty('a file path').optional().meta({ description: 'a .prom file for node_exporter\'s textfile collector, relative to the jobs file (written atomically)' }),
    pushgateway: httpUrl('an http:// or https:// URL of a Prometheus Pushgateway, e.g. http://pushgateway:9091').optional().meta({ description: 'a Prometheus Pushgateway the figures are pushed to' }),
  })
  .meta({ description: 'where each job\'s figures go for Prometheus: {textfile, pushgateway}' });

/**
 * `privacy:` on a job or at the top of jobs.yaml (issue 45, docs/configuration.md "Personal data:
 * privacy"): the fields whose values the run's outputs show masked. A job masks the top-level
 * list and its own together.
 */
const privacy = z
  .strictObject({
    mask: z
      .array(nonEmpty('a field the job maps, e.g. email'))
      .optional()
      .meta({
        description:
          'fields whose values logs, report.html, summary.json, changes.csv, the webhook and the metrics show masked (j•••@example.com, +65•••••567, a name as its initial); the key too when its field is listed; never what is written to the platform',
        examples: [['email', 'phone', 'firstName']],
      }),
  })
  .meta({ description: 'personal data in the run\'s outputs: {mask: [email, phone, firstName]}' });

function duration(min: number, max: number) {
  const range = `between ${min / 1000} s and ${max / 3_600_000} h`;
  return z.string().superRefine((text, ctx) => {
    const ms = parseDuration(text);
    if (ms === undefined) ctx.addIssue({ code: 'custom', message: `${show(text)} is not a duration; write ${DURATION_FORMS}` });
    else if (ms < min || ms > max) ctx.addIssue({ code: 'custom', message: `${show(text)} is out of range; write a duration ${range}` });
  });
}

/** The longest `retention.journal`: ten years (a longer one is a typo, or no retention at all: leave the key out). */
const RETENTION_MAX_MS = 3650 * 86_400_000;

/** `retention:` on a job, or at the top for every job (docs/personal-data.md). */
const retention = z
  .strictObject({
    journal: z
      .string()
      .superRefine((text, ctx) => {
        const ms = parseDuration(text);
        if (ms === undefined) ctx.addIssue({ code: 'custom', message: `${show(text)} is not a duration; write ${RETENTION_FORMS}` });
        else if (ms < 1000 || ms > RETENTION_MAX_MS) ctx.addIssue({ code: 'custom', message: `${show(text)} is out of range; write a duration between 1s and 3650d, e.g. 90d` });
      })
      .optional()
      .meta({ description: `how long the change journal keeps a run's values (before and after each write); older runs' lines are deleted by each run and by state prune: ${RETENTION_FORMS}`, examples: ['90d'] }),
  })
  .meta({ description: 'how long personal data is kept in the state store, e.g. {journal: 90d} (default: for ever)' });

/** How long the connection waits for the platform, and when it gives up (docs/reliability.md). */
const timeouts = z
  .strictObject({
    request: duration(1000, 3_600_000)
      .optional()
      .meta({ description: `the longest wait for one API answer, ${DURATION_FORMS}`, default: CONFIG_DEFAULTS.requestTimeout }),
    maxPages: envInteger('timeouts.maxPages', 1, 1_000_000)
      .optional()
      .meta({ description: 'the most result pages one key search reads before it fails with PAGE_LIMIT', default: CONFIG_DEFAULTS.maxPages }),
    maxRetryAfter: duration(1000, 86_400_000)
      .optional()
      .meta({
        description: `the longest Retry-After the connection pauses for; a longer one stops the job (RATE_LIMITED), ${DURATION_FORMS}`,
        default: CONFIG_DEFAULTS.maxRetryAfter,
      }),
    unavailableAfterAttempts: envInteger('timeouts.unavailableAfterAttempts', 1, 100_000)
      .optional()
      .meta({
        description: 'attempts in a row without an answer (timeouts, network failures, 5xx) after which the job stops (API_UNAVAILABLE)',
        default: CONFIG_DEFAULTS.unavailableAfterAttempts,
      }),
    unavailableAfter: duration(1000, 86_400_000)
      .optional()
      .meta({
        description: `how long without a successful call (from the first failure) before the job stops (API_UNAVAILABLE), ${DURATION_FORMS}`,
        default: CONFIG_DEFAULTS.unavailableAfter,
      }),
  })
  .meta({ description: 'how long the connection waits for the platform and when it gives up, e.g. {request: 30s, unavailableAfter: 5m}' });

const connection = z
  .strictObject({
    baseUrl,
    token: z.string().optional().meta({
      description: 'the channel token, from the environment: ${CHANNEL_TOKEN} (or use tokenFile)',
      examples: ['${CHANNEL_TOKEN}'],
    }),
    tokenFile: nonEmpty('a file path').optional().meta({
      description: 'a file holding the channel token (trimmed), relative to the jobs file, instead of token',
    }),
    api: z
      .enum(['v1', 'v2'])
      .optional()
      .meta({ description: 'the surface of the platform the connection speaks: v1 (a channel token) or v2 (a workspace token, baseUrl https://api.respond.io/v2)', default: CONFIG_DEFAULTS.api }),
    organisation: nonEmpty('an organisation name')
      .optional()
      .meta({ description: 'api: v2 only: the organisation whose budget the connection spends; connections and processes naming one organisation share it (default: the connection\'s name)' }),
    channelId: z
      .union([z.null(), envInteger('channelId', 1, 2_147_483_647)])
      .optional()
      .meta({ description: 'api: v2 only: the channel v2 sends go out on (a channel\'s number in the workspace), or null for the channel the contact last used; required by a v2 job that sends messages' }),
    channelType: z
      .enum(['generic', 'viber'])
      .optional()
      .meta({ description: 'generic or viber (Viber channels encode contact ids in some paths)', default: CONFIG_DEFAULTS.channelType }),
    allowInsecure: envBoolean.optional().meta({
      description: 'true to allow http:// to a host other than loopback (the token then crosses the network in clear)',
      default: CONFIG_DEFAULTS.allowInsecure,
    }),
    rateLimits: z
      .strictObject({
        contacts: rate.optional().meta({ description: `a rate of Contacts API calls: ${RATE_FORMS}`, default: CONFIG_DEFAULTS.contactsRate }),
        messages: rate.optional().meta({ description: `a rate of Messages API calls: ${RATE_FORMS}`, default: CONFIG_DEFAULTS.messagesRate }),
        redis: redisUrl.optional().meta({ description: 'a redis:// URL, to share the rate limits between processes' }),
      })
      .optional()
      .meta({ description: 'the rate limits of the channel, e.g. {contacts: 100/min, messages: 25/s}' }),
    timeouts: timeouts.optional(),
    notify: notify.optional(),
  })
  .meta({ description: 'a connection: {baseUrl, token or tokenFile, api, channelType, rateLimits}' });

const encoding = z
  .string()
  .refine((label) => iconv.encodingExists(label), {
    error: (issue) => `${show(issue.input)} is not an encoding iconv-lite knows; write e.g. utf-8, latin1, windows-1252 or utf-16le`,
  });

const delimiter = z.string().refine((text) => parseDelimiter(text) !== undefined, {
  error: (issue) => `${show(issue.input)} is not a delimiter; write auto, one character such as ";", or tab`,
});

const inputObject = z.strictObject({
  path: nonEmpty('the CSV path').meta({ description: 'the path of the CSV file, relative to the jobs file' }),
  delimiter: delimiter.optional().meta({
    description: 'auto (detects , ; tab | from the header), one character, or tab',
    default: CONFIG_DEFAULTS.delimiter,
  }),
  encoding: encoding.optional().meta({ description: 'the encoding of the file: utf-8, latin1, windows-1252, utf-16le...', default: CONFIG_DEFAULTS.encoding }),
});

const country = z.string().refine((code) => isSupportedCountry(code.toUpperCase()), {
  error: (issue) => `${show(issue.input)} is not a country code; write an ISO 3166 alpha-2 code such as SG, GB or US`,
});

const transformName = z.enum(['trim', 'lowercase', 'uppercase', 'email', 'phone']);
const transformItem = z
  .union([
    transformName,
    z.strictObject({
      phone: z
        .strictObject({
          defaultCountry: country.optional().meta({ description: 'the country of numbers written without +, e.g. SG' }),
          country: z
            .strictObject({ column: nonEmpty('the column holding each row\'s country').meta({ description: 'the column of the row\'s country: an ISO code (SG) or a name (Singapore)' }) })
            .optional()
            .meta({ description: '{column: Country}: the row\'s own country (an ISO alpha-2 or alpha-3 code or a name); defaultCountry when the cell is empty; a cell naming no country fails the number (UNKNOWN_COUNTRY) unless it starts with +' }),
          extensionField: nonEmpty('the custom field of the extension')
            .optional()
            .meta({ description: 'the custom field a number\'s extension (x889, ext. 889) is written to; without it the number is written without the extension, named in results.csv\'s warnings' }),
        })
        .refine((phone) => phone.defaultCountry !== undefined || phone.country !== undefined, {
          error: 'names no country; write {defaultCountry: SG}, {country: {column: Country}} or both, or plain phone',
        })
        .meta({ description: '{defaultCountry: SG, country: {column: Country}, extensionField: phone_ext}' }),
    }),
    z.strictObject({
      map: z.record(z.string(), scalarText).meta({ description: 'a mapping of value: replacement, e.g. {M: male, F: female}' }),
    }),
  ])
  .meta({ description: 'a transform: trim, lowercase, uppercase, email, phone, {phone: {defaultCountry: SG, country: {column: Country}}} or {map: {from: to}}' });
const transforms = z
  .union([transformItem, z.array(transformItem)])
  .meta({ id: 'transforms', description: 'a transform or a list of them, applied in order after trim, e.g. [trim, lowercase]' });

/** A field's write rule (docs/configuration.md, "Write rules"). */
const writeRule = z
  .enum(['always', 'fill-empty', 'on-create'])
  .optional()
  .meta({
    description:
      'always: the file\'s value is written whenever it differs; fill-empty: only where the platform\'s value is empty (an agent\'s value wins); on-create: only when the contact is created',
    default: 'always',
  });

const fieldOptions = {
  transform: transforms.optional(),
  write: writeRule,
  onEmpty: z
    .enum(['keep', 'clear'])
    .optional()
    .meta({ description: 'an empty cell: keep the platform\'s value, or clear it (writes ""); default: the job\'s emptyValues (ignore is keep)' }),
  trim: envBoolean.optional().meta({ description: 'true to trim spaces first, false to keep them', default: CONFIG_DEFAULTS.trim }),
  default: scalarText.optional().meta({ description: 'the value used when the result is empty' }),
  onInvalid: z
    .enum(['fail-row', 'skip-field'])
    .optional()
    .meta({ description: 'a value the transforms refuse (an invalid email or phone): fail-row fails the row; skip-field writes the row without this field, and results.csv names it', default: 'fail-row' }),
};

const template = z.string().superRefine((text, ctx) => {
  const parsed = parseTemplate(text);
  if (parsed.problem !== undefined) ctx.addIssue({ code: 'custom', message: parsed.problem });
  else if (parsed.columns.length === 0) {
    ctx.addIssue({ code: 'custom', message: `${show(text)} has no {{column}} placeholder; write e.g. "{{first_name}} {{last_name}}", or use value: for a constant` });
  }
});

const fieldSource = z
  .union([
    nonEmpty('a column name'),
    z.strictObject({ column: nonEmpty('a column name').meta({ description: 'the CSV column to read' }), ...fieldOptions }),
    z.strictObject({ value: scalarText.meta({ description: 'a constant written to every contact' }), write: writeRule }),
    z.strictObject({ template: template.meta({ description: 'a text with {{column}} placeholders' }), ...fieldOptions }),
  ])
  .meta({
    description: 'a column name, or {column, transform, trim, default, onInvalid, write, onEmpty}, or {value: constant, write}, or {template: "{{first_name}} {{last_name}}"}',
  });

const tags = z
  .strictObject({
    column: nonEmpty('a column name').optional().meta({ description: "the CSV column holding the row's tags" }),
    separator: nonEmpty('a separator').optional().meta({ description: 'the separator of the tags in the column', default: CONFIG_DEFAULTS.tagSeparator }),
    static: z.array(scalarText).optional().meta({ description: 'the tags added to every contact of the file', default: [] }),
    remove: z.array(scalarText).optional().meta({ description: 'the tags removed from every contact of the file (when present)', default: [] }),
    prune: envBoolean
      .optional()
      .meta({ description: 'true to remove the tags this job set on a contact (known from the state store, or matching owned) that its row no longer carries', default: false }),
    owned: z
      .union([
        z.array(scalarText),
        z.strictObject({ prefix: nonEmpty('a tag prefix such as "seg:"').meta({ description: 'tags starting with this prefix belong to this job' }) }),
      ])
      .optional()
      .meta({ description: 'the tags this job owns, for prune: a list of tags, or {prefix: "seg:"}' }),
    case: z
      .enum(['keep', 'lower'])
      .optional()
      .meta({ description: 'keep: tags as the file writes them (VIP and vip are two tags); lower: the column\'s tags lowercased, so VIP;vip;Vip is one tag, vip', default: 'keep' }),
  })
  .meta({ description: 'the tags: {column, separator, static: [...], remove: [...], prune, owned, case}' });

const missingShare = z
  .string()
  .superRefine((value, ctx) => {
    const parsed = parseMissingShare(value);
    if ('problem' in parsed) ctx.addIssue({ code: 'custom', message: `${show(value)} ${parsed.problem}` });
  })
  .meta({ description: 'a share of the known keys such as "10%": when more are missing, the step is refused', default: CONFIG_DEFAULTS.onMissingMaxShare });

const onMissing = z
  .strictObject({
    action: z
      .enum(['keep', 'tag', 'untag', 'update'])
      .optional()
      .meta({ description: 'keep (nothing), tag (add tags), untag (remove tags) or update (set fields): what to do with a key that left the file', default: CONFIG_DEFAULTS.onMissingAction }),
    tags: z.array(scalarText).optional().meta({ description: 'tag / untag: the tags added to or removed from a departed contact' }),
    fields: z.record(z.string(), scalarText).optional().meta({ description: 'update: custom field name: value, set on a departed contact' }),
    maxShare: missingShare.optional(),
  })
  .meta({ description: 'what to do with keys an earlier complete run saw and this complete run lacks: {action, tags, fields, maxShare}' });


/** `verify:` on a job: the share of the state's trusted keys a run re-reads (docs/configuration.md, "Verification"). */
const verify = z
  .strictObject({
    share: z
      .union([z.number(), z.string()])
      .superRefine((value, ctx) => {
        const parsed = parseVerifyShare(value);
        if ('problem' in parsed) ctx.addIssue({ code: 'custom', message: `${show(value)} ${parsed.problem}` });
      })
      .meta({ description: 'a share of the keys the state trusts, such as "20%" (or 20): each run re-reads at most that many contacts (calls), least recently verified first, and repairs what differs' }),
  })
  .meta({ description: 'verification within the budget: {share: "20%"}; needs a state store' });

/** `guards:` on a job: what refuses a night before its first write (docs/configuration.md, "Guards"). */
const guards = z
  .strictObject({
    minRows: envInteger('guards.minRows', 1, 1_000_000_000)
      .optional()
      .meta({ description: 'the fewest data rows the input may have: a shorter export (empty, or cut short) is refused before any write' }),
    maxChange: z
      .string()
      .superRefine((value, ctx) => {
        const parsed = parseMissingShare(value);
        if ('problem' in parsed) ctx.addIssue({ code: 'custom', message: `${show(value)} ${parsed.problem.replace('of the known keys', 'of the keys the state knows')}` });
      })
      .optional()
      .meta({ description: 'a share of the keys the state store knows, such as "20%": when more of them would change or clear one field, the run is refused before any write' }),
  })
  .meta({ description: 'checks before the first write, each refusing the run (exit 2) unless --allow NAME: {minRows, maxChange}' });

const match = z
  .strictObject({
    prefetch: z
      .strictObject({
        field: nonEmpty('a custom field name').meta({ description: 'the custom field to page through' }),
        value: scalarText.meta({ description: "the value of that field that the job's contacts hold" }),
      })
      .optional()
      .meta({ description: '{field, value}: index the contacts holding field = value once, instead of one search per row' }),
  })
  .meta({ description: 'how rows find their contact, e.g. {prefetch: {field: source, value: crm}}' });

const quickReply = z.string().min(1, { error: 'a quick reply is empty; write its text' }).max(MAX_QUICK_REPLY_LENGTH, {
  error: (issue) =>
    `quick reply ${show(issue.input)} has ${typeof issue.input === 'string' ? issue.input.length : 'too many'} characters; shorten it to at most ${MAX_QUICK_REPLY_LENGTH}`,
});

const messageTemplate = z
  .strictObject({
    name: nonEmpty('the approved template\'s name, e.g. welcome_v2').meta({ description: "the approved WhatsApp template's name ({{column}} placeholders allowed)" }),
    language: nonEmpty('its language code, e.g. en or pt_BR').meta({ description: 'the language code of the approved template, e.g. en, en_US ({{column}} placeholders allowed)' }),
    body: nonEmpty('the text of its body, e.g. "Hi {{first_name}}, welcome!"').meta({ description: "the text of the template's body as approved, with the row's values ({{column}} placeholders allowed)" }),
  })
  .meta({ description: 'a WhatsApp message template: {name, language, body}' });

const message = z
  .strictObject({
    when: z
      .enum(['created', 'updated', 'changed', 'always'])
      .optional()
      .meta({ description: 'created, updated, changed (either) or always: when to send', default: CONFIG_DEFAULTS.messageWhen }),
    type: z
      .enum(['text', 'image', 'video', 'audio', 'file', 'quick_reply', 'whatsapp_template'])
      .optional()
      .meta({ description: 'text, image, video, audio, file, quick_reply or whatsapp_template', default: CONFIG_DEFAULTS.messageType }),
    text: z.string().optional().meta({ description: 'the text of a text or quick_reply message ({{column}} placeholders allowed)' }),
    url: z.string().optional().meta({ description: 'the http(s) URL of an image, video, audio or file ({{column}} placeholders allowed)' }),
    quickReplies: z
      .array(quickReply)
      .max(MAX_QUICK_REPLIES, {
        error: (issue) => `${Array.isArray(issue.input) ? issue.input.length : 'too many'} quick replies; keep at most ${MAX_QUICK_REPLIES}`,
      })
      .optional()
      .meta({ description: `the replies of a quick_reply message: at most ${MAX_QUICK_REPLIES}, of at most ${MAX_QUICK_REPLY_LENGTH} characters` }),
    template: messageTemplate.optional(),
    forceCancelSurvey: envBoolean.optional().meta({ description: 'true to cancel an active survey of the contact', default: CONFIG_DEFAULTS.forceCancelSurvey }),
    repeat: envBoolean.optional().meta({ description: 'true to send again on later runs (otherwise once per contact)', default: CONFIG_DEFAULTS.repeat }),
    contactIdColumn: nonEmpty('a column name').optional().meta({ description: 'for mode: message, the CSV column holding the contact id' }),
    channelId: z
      .union([z.null(), envInteger('channelId', 1, 2_147_483_647)])
      .optional()
      .meta({ description: "api: v2 only: the channel this job's messages go out on (a channel's number in the workspace), or null for the channel the contact last used; overrides the connection's channelId" }),
  })
  .meta({ description: 'a message: {when, type, text, url, quickReplies, template, forceCancelSurvey, repeat, contactIdColumn, channelId}' });

/**
 * `state:` (docs/configuration.md, docs/state.md): a SQLite file, false, or a PostgreSQL database.
 * A text that looks like a URL is never a file path (state-location.ts); no message shows it, as
 * it may hold a password.
 */
const stateStore = z
  .union([
    nonEmpty('a file path').superRefine((text, ctx) => {
      const problem = looksLikeUrl(text) ? stateUrlProblem(text) : undefined;
      if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
    }),
    z.literal(false),
    z
      .strictObject({
        url: z
          .string()
          .superRefine((text, ctx) => {
            const problem = looksLikeUrl(text) ? stateUrlProblem(text) : 'is not a postgres:// URL (the value is not shown: it may hold a password); write postgres://USER:PASSWORD@HOST:PORT/DATABASE';
            if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
          })
          .meta({ description: 'the PostgreSQL database: postgres://USER:PASSWORD@HOST:PORT/DATABASE (${ENV} allowed; the password is never printed)' }),
        schema: z
          .string()
          .regex(STATE_SCHEMA_PATTERN, {
            error: (issue) => `${show(issue.input)} is not a schema name; use lower-case letters, digits and "_" (not starting with a digit, at most 63), e.g. ${DEFAULT_STATE_SCHEMA}`,
          })
          .optional()
          .meta({ description: 'the schema the tables live in', default: DEFAULT_STATE_SCHEMA }),
      })
      .meta({ description: 'a PostgreSQL state store: {url, schema}' }),
  ])
  .meta({
    description: `where the job's state lives: ${STATE_FORMS}; a file is relative to the jobs file (default .contact-sync/<job>.db)`,
  });

const maxErrors = z
  .union([z.number(), z.string()])
  .superRefine((value, ctx) => {
    const parsed = parseMaxErrors(value);
    if ('problem' in parsed) ctx.addIssue({ code: 'custom', message: `${show(value)} ${parsed.problem}` });
  })
  .meta({ description: 'a count (50) or a share ("5%", at most 100%) of the rows sent to the platform: the job aborts when more rows failed there (rows refused for their own data do not count)', examples: [50, '5%'] });

const job = z
  .strictObject({
    name: z
      .string()
      .regex(JOB_NAME_PATTERN, {
        error: (issue) => `${show(issue.input)} is not a job name; use letters, digits, ".", "_" and "-" (it names files), e.g. crm-nightly`,
      })
      .meta({ description: 'a unique job name of letters, digits, ".", "_" and "-" (it names the report and state files)' }),
    connection: nonEmpty('a connection name').meta({ description: 'the name of a connection under connections:' }),
    input: z
      .union([nonEmpty('the CSV path'), inputObject])
      .meta({ description: 'the CSV: a path, or {path, delimiter, encoding} (paths are relative to the jobs file)' }),
    key: z
      .strictObject({
        column: nonEmpty('a column name').meta({ description: 'the CSV column holding the key' }),
        field: nonEmpty('a custom field name').meta({ description: 'the custom field the key is stored in and searched by' }),
      })
      .optional()
      .meta({ description: 'the column and custom field that identify a contact, e.g. {column: customer_id, field: customerid}' }),
    mode: z
      .enum(['upsert', 'create', 'update', 'message'])
      .optional()
      .meta({ description: 'upsert, create (only new contacts), update (only existing ones) or message (send only)', default: CONFIG_DEFAULTS.mode }),
    onDuplicate: z
      .enum(['fail', 'oldest', 'newest', 'all'])
      .optional()
      .meta({ description: 'fail, oldest, newest or all: what to do when a key matches several contacts', default: CONFIG_DEFAULTS.onDuplicate }),
    onDuplicateRows: z
      .enum(['last', 'first', 'merge', 'fail'])
      .optional()
      .meta({
        description:
          'last, first, merge or fail: what to do when a key is on several rows of the file (last/first: that row is applied, the others skipped; merge: folded into one; fail: all fail)',
        default: CONFIG_DEFAULTS.onDuplicateRows,
      }),
    fields: z.record(z.string(), fieldSource).optional().meta({ description: 'a mapping of custom field name: a column, {column, transform}, {value} or {template}' }),
    emptyValues: z
      .enum(['ignore', 'clear'])
      .optional()
      .meta({ description: 'ignore (an empty cell keeps the platform value) or clear (writes "")', default: CONFIG_DEFAULTS.emptyValues }),
    tags: tags.optional(),
    onMissing: onMissing.optional(),
    guards: guards.optional(),
    verify: verify.optional(),
    match: match.optional(),
    message: message.optional(),
    state: stateStore.optional(),
    concurrency: envInteger('concurrency', CONCURRENCY_RANGE.min, CONCURRENCY_RANGE.max)
      .optional()
      .meta({ description: `the rows in flight at once, a whole number from ${CONCURRENCY_RANGE.min} to ${CONCURRENCY_RANGE.max}`, default: CONFIG_DEFAULTS.concurrency }),
    maxErrors: maxErrors.optional(),
    notify: notify.optional(),
    retention: retention.optional(),
    privacy: privacy.optional(),
  })
  .meta({ description: 'a job: {name, connection, input, key, fields, tags...}' });

/**
 * Top-level keys starting with this are the user's own, ignored: a place for YAML anchors that
 * jobs and connections reuse (`x-defaults: &defaults`, then `<<: *defaults`). load-jobs-file.ts
 * drops them before the schema; jobs.schema.json accepts them (json-schema.ts).
 */
export const EXTENSION_KEY_PREFIX = 'x-';

export const jobsFileInputSchema = z
  .strictObject({
    connections: z
      .record(z.string(), connection)
      .refine((connections) => Object.keys(connections).length > 0, { error: 'no connection is defined; add one under connections:' })
      .meta({ description: 'a mapping of connection name: {baseUrl, token, ...}' }),
    jobs: z
      .array(job)
      .min(1, { error: 'no job is defined; add one under jobs:' })
      .meta({ description: 'a list of jobs, each syncing one CSV file' }),
    metrics: metrics.optional(),
    retention: retention.optional().meta({ description: 'the retention of every job that sets none, e.g. {journal: 90d} (default: for ever)' }),
    privacy: privacy.optional(),
  })
  .meta({ description: 'a jobs file with connections: and jobs:' });

/** What a user writes (after `${VAR}` interpolation). */
export type JobsFileInput = z.input<typeof jobsFileInputSchema>;
/** The same, checked, with strings of numbers and booleans converted. Normalised by normalise.ts. */
export type JobsFileParsed = z.output<typeof jobsFileInputSchema>;
export type JobParsed = JobsFileParsed['jobs'][number];
export type ConnectionParsed = JobsFileParsed['connections'][string];
export type FieldSourceParsed = NonNullable<JobParsed['fields']>[string];
export type TransformParsed = z.output<typeof transformItem>;
