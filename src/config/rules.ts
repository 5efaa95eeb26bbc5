/**
 * Checks that span several keys (like changesets' config rules). They run on the interpolated
 * data even when the schema found problems, so one run reports every mistake of the file; each
 * rule looks only at the parts that have the shape it needs and leaves the rest to the schema.
 */
import { normalize } from 'node:path';
import { languageCodeProblem, templateNameProblem } from '../api/whatsapp-template-rules.js';
import { ATTACHMENT_TYPES } from '../limits.js';
import { CONFIG_DEFAULTS, defaultStatePath } from './defaults.js';
import { didYouMean } from './did-you-mean.js';
import { isLoopbackHost } from './loopback-host.js';
import { looksLikeUrl } from './state-location.js';
import type { PathIssue } from './schema-issues.js';
import { fillPlaceholders, parseTemplate } from './template-placeholders.js';
import { formatYamlPath } from './yaml-path.js';
import type { YamlPath } from './yaml-path.js';

type Loose = Record<string, unknown>;

function asRecord(value: unknown): Loose | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Loose) : undefined;
}

function asText(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function checkRules(data: unknown): PathIssue[] {
  const root = asRecord(data);
  if (root === undefined) return [];
  const connections = asRecord(root.connections);
  const issues: PathIssue[] = [];
  for (const [name, connection] of Object.entries(connections ?? {})) {
    issues.push(...connectionRules(['connections', name], asRecord(connection)));
  }
  const jobs = Array.isArray(root.jobs) ? (root.jobs as unknown[]) : [];
  jobs.forEach((job, index) => issues.push(...jobRules(['jobs', index], asRecord(job), connections)));
  issues.push(...uniqueNameRule(jobs), ...uniqueStateRule(jobs));
  issues.push(...privacyRules(asRecord(root.privacy), jobs.map((job) => asRecord(job))));
  return issues;
}

/** The fields a job maps, by name: its key's field and each of `fields:` (what `privacy.mask` may name). */
function mappedFields(job: Loose | undefined): string[] {
  const keyField = asText(asRecord(job?.key)?.field);
  const names = [...(keyField === undefined || keyField === '' ? [] : [keyField]), ...Object.keys(asRecord(job?.fields) ?? {})];
  return [...new Set(names)];
}

/** What `privacy.mask` names that is not a field: the fields it could name, the closest first. */
function unmappedField(name: string, mapped: readonly string[], top: boolean): string {
  const suggestion = didYouMean(name, mapped);
  const what = top ? `"${name}" is a field no job of this file maps` : `"${name}" is not a field this job maps`;
  const maps = mapped.length === 0 ? (top ? 'the jobs map no field' : 'it maps no field') : `${top ? 'the jobs map' : 'it maps'} ${mapped.join(', ')}`;
  return `${what}${suggestion === undefined ? '' : `; did you mean "${suggestion}"?`} (${maps}: the key's field and those under fields:); name one of them, or remove it`;
}

/**
 * `privacy.mask` (a job's, or the top-level one): each name is a field the job maps (the key's
 * field or one of `fields:`); a top-level name, a field some job of the file maps. A typo would
 * leave a value in full where the user thinks it masked: exit 2.
 */
function privacyRules(filePrivacy: Loose | undefined, jobs: readonly (Loose | undefined)[]): PathIssue[] {
  const issues: PathIssue[] = [];
  jobs.forEach((job, index) => {
    const mask = asRecord(job?.privacy)?.mask;
    if (!Array.isArray(mask)) return;
    const mapped = mappedFields(job);
    mask.forEach((name, at) => {
      if (typeof name === 'string' && name !== '' && !mapped.includes(name)) {
        issues.push({ path: ['jobs', index, 'privacy', 'mask', at], message: unmappedField(name, mapped, false) });
      }
    });
  });
  const fileMask = filePrivacy?.mask;
  if (Array.isArray(fileMask)) {
    const mapped = [...new Set(jobs.flatMap((job) => mappedFields(job)))];
    fileMask.forEach((name, at) => {
      if (typeof name === 'string' && name !== '' && !mapped.includes(name)) {
        issues.push({ path: ['privacy', 'mask', at], message: unmappedField(name, mapped, true) });
      }
    });
  }
  return issues;
}

function connectionRules(path: YamlPath, connection: Loose | undefined): PathIssue[] {
  if (connection === undefined) return [];
  const issues: PathIssue[] = [];
  const { token, tokenFile } = connection;
  if (token === undefined && tokenFile === undefined) {
    issues.push({ path: [...path, 'token'], message: 'is missing; add token: ${CHANNEL_TOKEN} (or tokenFile: a file holding the token)' });
  } else if (token !== undefined && tokenFile !== undefined) {
    issues.push({ path: [...path, 'tokenFile'], message: 'token and tokenFile are both given; keep one of them' });
  } else if (typeof token === 'string' && token.trim() === '') {
    issues.push({ path: [...path, 'token'], message: 'is empty; write token: ${CHANNEL_TOKEN} and set CHANNEL_TOKEN in the environment' });
  }
  issues.push(...notifyRules([...path, 'notify'], asRecord(connection.notify)));
  issues.push(...surfaceRules(path, connection));
  const baseUrl = asText(connection.baseUrl);
  const insecureAllowed = connection.allowInsecure === true || connection.allowInsecure === 'true';
  if (baseUrl !== undefined && URL.canParse(baseUrl) && !insecureAllowed) {
    const url = new URL(baseUrl);
    if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
      issues.push({
        path: [...path, 'baseUrl'],
        message: `http://${url.host} would send the token in clear text over the network; use https://, or set allowInsecure: true on a network you trust`,
      });
    }
  }
  return issues;
}

/** The keys of one surface only, and v2's base URL (docs/configuration.md, "API v1 or v2"). */
function surfaceRules(path: YamlPath, connection: Loose): PathIssue[] {
  const issues: PathIssue[] = [];
  const v2 = connection.api === 'v2';
  const baseUrl = asText(connection.baseUrl);
  const rootPath = baseUrl !== undefined && URL.canParse(baseUrl) ? new URL(baseUrl).pathname.replace(/\/+$/, '') : undefined;
  if (v2) {
    if (rootPath !== undefined && !rootPath.endsWith('/v2')) {
      issues.push({
        path: [...path, 'baseUrl'],
        message: `with api: v2 is the API's root, ending at /v2 as the platform's SDK has it (https://api.respond.io/v2); request paths /contact/... are appended to it`,
      });
    }
    if (connection.channelType !== undefined) {
      issues.push({ path: [...path, 'channelType'], message: 'means nothing with api: v2 (a v2 token is a workspace\'s, and ids are never encoded); remove it' });
    }
    return issues;
  }
  for (const key of ['organisation', 'channelId'] as const) {
    if (connection[key] !== undefined) {
      issues.push({ path: [...path, key], message: `is used only with api: v2 (this connection speaks ${asText(connection.api) ?? CONFIG_DEFAULTS.api}); add api: v2 or remove it` });
    }
  }
  if (rootPath?.endsWith('/v2') === true) {
    issues.push({ path: [...path, 'baseUrl'], message: 'ends with /v2, the root of the platform\'s API v2; add api: v2 to speak v2 with a workspace token, or write the v1 API root' });
  }
  return issues;
}

/**
 * A phone transform's `extensionField` is a field of its own: not one the job maps, not the key
 * field, not another phone's (one would silently replace the other).
 */
function extensionFieldRules(path: YamlPath, fields: Loose, keyField: string | undefined): PathIssue[] {
  const issues: PathIssue[] = [];
  const taken = new Map<string, string>();
  for (const [name, spec] of Object.entries(fields)) {
    const transform = asRecord(spec)?.transform;
    const list: unknown[] = Array.isArray(transform) ? transform : [transform];
    list.forEach((item, index) => {
      const target = asText(asRecord(asRecord(item)?.phone)?.extensionField);
      if (target === undefined) return;
      const at: YamlPath = [...path, name, 'transform', ...(Array.isArray(transform) ? [index] : []), 'phone', 'extensionField'];
      if (Object.hasOwn(fields, target)) issues.push({ path: at, message: `"${target}" is a field the job maps already; name a field of its own for the extension, or remove that field` });
      else if (target === keyField) issues.push({ path: at, message: `"${target}" is the key field; name a field of its own for the extension` });
      else if (taken.has(target)) issues.push({ path: at, message: `"${target}" is the extension field of ${taken.get(target)!} too; give each phone a field of its own` });
      taken.set(target, name);
    });
  }
  return issues;
}

/** A v2 send names its channel: a job that sends through a v2 connection needs its `message.channelId` or the connection's; v1 has no such key. */
function v2MessageRule(path: YamlPath, job: Loose, connections: Loose | undefined): PathIssue[] {
  const name = asText(job.connection);
  const connection = name === undefined ? undefined : asRecord(connections?.[name]);
  const message = asRecord(job.message);
  if (job.message === undefined || connection === undefined) return [];
  if (connection.api !== 'v2') {
    if (message?.channelId === undefined) return [];
    return [
      {
        path: [...path, 'message', 'channelId'],
        message: `is used only with api: v2, and connection "${name}" speaks ${asText(connection.api) ?? CONFIG_DEFAULTS.api} (a v1 token is one channel's, so its messages go out on that channel); remove it, or use a connection with api: v2`,
      },
    ];
  }
  const issues: PathIssue[] = [];
  if (connection.channelId === undefined && message?.channelId === undefined) {
    issues.push({
      path: [...path, 'message'],
      message: `is sent through connection "${name}", which speaks api: v2: set this job's message.channelId or connections.${name}.channelId to the channel's number, or to null for the channel the contact last used (a contact just created has none)`,
    });
  }
  if (message?.forceCancelSurvey === true || message?.forceCancelSurvey === 'true') {
    issues.push({ path: [...path, 'message', 'forceCancelSurvey'], message: `has no counterpart on api: v2 (connection "${name}"): a v2 send cancels no survey; remove it` });
  }
  return issues;
}

function jobRules(path: YamlPath, job: Loose | undefined, connections: Loose | undefined): PathIssue[] {
  if (job === undefined) return [];
  const issues: PathIssue[] = [];
  const connectionName = asText(job.connection);
  if (connectionName !== undefined && connectionName !== '' && connections !== undefined && !Object.hasOwn(connections, connectionName)) {
    const known = Object.keys(connections);
    const suggestion = didYouMean(connectionName, known);
    const fix = suggestion !== undefined ? `did you mean "${suggestion}"?` : known.length > 0 ? `use one of ${known.join(', ')}` : 'define it under connections:';
    issues.push({ path: [...path, 'connection'], message: `"${connectionName}" is not a connection of this file; ${fix}` });
  }

  const mode = asText(job.mode) ?? CONFIG_DEFAULTS.mode;
  const message = asRecord(job.message);
  const key = asRecord(job.key);
  const contactIdColumn = asText(message?.contactIdColumn);
  if (job.key === undefined) {
    if (mode !== 'message') {
      issues.push({ path: [...path, 'key'], message: 'is missing; add key: {column: <CSV column>, field: <custom field>} to find each row\'s contact' });
    } else if (contactIdColumn === undefined) {
      issues.push({ path: [...path, 'key'], message: 'is missing; with mode: message, add key: {column, field}, or message.contactIdColumn: the column holding contact ids' });
    }
  }
  const fields = asRecord(job.fields);
  const keyField = asText(key?.field);
  if (keyField !== undefined && fields !== undefined && Object.hasOwn(fields, keyField)) {
    issues.push({ path: [...path, 'fields', keyField], message: `"${keyField}" is the key field, written from key.column; remove it from fields` });
  }
  if (fields !== undefined && Object.hasOwn(fields, '')) {
    issues.push({ path: [...path, 'fields', ''], message: 'a field has an empty name; write the custom field name before the colon' });
  }
  if (fields !== undefined) issues.push(...extensionFieldRules([...path, 'fields'], fields, keyField));

  if (job.onDuplicateRows !== undefined && mode === 'message') {
    issues.push({ path: [...path, 'onDuplicateRows'], message: 'is not used with mode: message (each row is a message of its own); remove it' });
  }
  if (mode === 'message' && job.message === undefined) {
    issues.push({ path: [...path, 'message'], message: 'is missing; mode: message sends a message to each row\'s contact: add message: {text: ...}' });
  }
  if (contactIdColumn !== undefined && mode !== 'message') {
    issues.push({ path: [...path, 'message', 'contactIdColumn'], message: `is used only with mode: message (this job's mode is ${mode}); set mode: message or remove it` });
  }
  if (message !== undefined) issues.push(...messageRules([...path, 'message'], message));
  issues.push(...v2MessageRule(path, job, connections));
  issues.push(...tagRules([...path, 'tags'], asRecord(job.tags)));
  issues.push(...pruneRules([...path, 'tags'], asRecord(job.tags), job.state, mode));
  issues.push(...lowercaseRules(path, asRecord(job.tags), asRecord(job.onMissing)));
  const onMissing = asRecord(job.onMissing);
  if (onMissing !== undefined) issues.push(...onMissingRules([...path, 'onMissing'], onMissing, job.state, mode, keyField));
  issues.push(...notifyRules([...path, 'notify'], asRecord(job.notify)));
  const verify = asRecord(job.verify);
  if (verify !== undefined && job.state === false) {
    issues.push({
      path: [...path, 'verify'],
      message: 'needs a state store (this job has state: false): verification re-reads the contacts the state trusts and repairs them to what it last wrote; remove state: false, or remove verify',
    });
  }
  if (verify !== undefined && mode === 'message') {
    issues.push({ path: [...path, 'verify'], message: 'is used only when the job writes contacts (mode upsert, create or update); remove it' });
  }
  const guards = asRecord(job.guards);
  if (guards?.maxChange !== undefined && job.state === false) {
    issues.push({
      path: [...path, 'guards', 'maxChange'],
      message: 'needs the state store (this job has state: false): only the state knows, before any call, what each key was written last; remove state: false, or remove maxChange',
    });
  }
  return issues;
}

/** `notify:` tells someone: a webhook, a heartbeat or both; `on` times the webhook only. */
function notifyRules(path: YamlPath, notify: Loose | undefined): PathIssue[] {
  if (notify === undefined) return [];
  if (notify.webhook === undefined && notify.heartbeat === undefined) {
    return [{ path: [...path, 'webhook'], message: 'is missing, and so is heartbeat: notify names no one to tell; add webhook: URL (a chat notice when the job ends) or heartbeat: URL (a cron monitor\'s ping), or remove notify' }];
  }
  if (notify.webhook === undefined && notify.on !== undefined) {
    return [{ path: [...path, 'on'], message: 'says when the webhook is told, and this notify has no webhook (a heartbeat is pinged at every start and end); add webhook: URL or remove on' }];
  }
  return [];
}

const isTrue = (value: unknown): boolean => value === true || value === 'true';

/**
 * With `tags.case: lower` the column's tags are lowercased, so a tag the job names itself (static,
 * remove, owned, onMissing's) must be written in lowercase too, or it would never meet them.
 */
function lowercaseRules(path: YamlPath, tags: Loose | undefined, onMissing: Loose | undefined): PathIssue[] {
  if (tags === undefined || tags.case !== 'lower') return [];
  const issues: PathIssue[] = [];
  const check = (at: YamlPath, value: unknown): void => {
    const text = asText(value);
    if (text !== undefined && text !== text.toLowerCase()) {
      issues.push({ path: at, message: `"${text}" is not lowercase, and tags.case: lower writes every tag of the column in lowercase; write "${text.toLowerCase()}"` });
    }
  };
  const each = (at: YamlPath, list: unknown): void => {
    if (Array.isArray(list)) list.forEach((value, index) => check([...at, index], value));
  };
  each([...path, 'tags', 'static'], tags.static);
  each([...path, 'tags', 'remove'], tags.remove);
  each([...path, 'tags', 'owned'], tags.owned);
  check([...path, 'tags', 'owned', 'prefix'], asRecord(tags.owned)?.prefix);
  each([...path, 'onMissing', 'tags'], onMissing?.tags);
  return issues;
}

/** `prune` must know which tags are the job's: the state store's memory, or `owned`. */
function pruneRules(path: YamlPath, tags: Loose | undefined, state: unknown, mode: string): PathIssue[] {
  if (tags === undefined || !isTrue(tags.prune)) return [];
  if (mode === 'message') {
    return [{ path: [...path, 'prune'], message: 'is used only when the job writes contacts (mode upsert, create or update); remove it' }];
  }
  if (state === false && tags.owned === undefined) {
    return [
      {
        path: [...path, 'prune'],
        message:
          'needs to know which tags this job set: keep a state store (remove state: false), or name the tags this job owns in tags.owned (a list, or {prefix: "seg:"})',
      },
    ];
  }
  return [];
}

/** `onMissing` needs the state store's keys, and each action its own values. */
function onMissingRules(path: YamlPath, onMissing: Loose, state: unknown, mode: string, keyField: string | undefined): PathIssue[] {
  const issues: PathIssue[] = [];
  if (mode === 'message') {
    issues.push({ path, message: 'is used only when the job writes contacts (mode upsert, create or update); remove it' });
  }
  if (state === false) {
    issues.push({ path, message: 'needs a state store to know the keys earlier runs synced; remove state: false from this job, or remove onMissing' });
  }
  const action = asText(onMissing.action) ?? CONFIG_DEFAULTS.onMissingAction;
  const tagAction = action === 'tag' || action === 'untag';
  const tags = Array.isArray(onMissing.tags) ? onMissing.tags : undefined;
  if (tagAction && (tags === undefined || tags.length === 0)) {
    issues.push({ path: [...path, 'tags'], message: `is missing; action: ${action} needs the tags, e.g. tags: [left-crm]` });
  }
  if (!tagAction && onMissing.tags !== undefined) {
    issues.push({ path: [...path, 'tags'], message: `are used only with action: tag or untag (this action is ${action}); set the action or remove them` });
  }
  const fields = asRecord(onMissing.fields);
  if (action === 'update' && (fields === undefined || Object.keys(fields).length === 0)) {
    issues.push({ path: [...path, 'fields'], message: 'is missing; action: update needs the fields to set, e.g. fields: {status: inactive}' });
  }
  if (action !== 'update' && onMissing.fields !== undefined) {
    issues.push({ path: [...path, 'fields'], message: `are used only with action: update (this action is ${action}); set action: update or remove them` });
  }
  if (fields !== undefined && keyField !== undefined && Object.hasOwn(fields, keyField)) {
    issues.push({ path: [...path, 'fields', keyField], message: `"${keyField}" is the key field; a departed contact keeps its key: remove it` });
  }
  return issues;
}

function messageRules(path: YamlPath, message: Loose): PathIssue[] {
  const issues: PathIssue[] = [];
  const type = asText(message.type) ?? CONFIG_DEFAULTS.messageType;
  const text = asText(message.text);
  const url = asText(message.url);
  const isAttachment = (ATTACHMENT_TYPES as readonly string[]).includes(type);
  if ((type === 'text' || type === 'quick_reply') && message.text === undefined) {
    issues.push({ path: [...path, 'text'], message: `is missing; type: ${type} needs text: "Hello {{first_name}}"` });
  }
  if (text !== undefined) {
    const problem = parseTemplate(text).problem;
    if (problem !== undefined) issues.push({ path: [...path, 'text'], message: problem });
  }
  if (isAttachment && message.url === undefined) {
    issues.push({ path: [...path, 'url'], message: `is missing; type: ${type} needs url: https://... ({{column}} placeholders allowed)` });
  }
  if (url !== undefined) {
    const problem = parseTemplate(url).problem ?? attachmentUrlProblem(url);
    if (problem !== undefined) issues.push({ path: [...path, 'url'], message: problem });
  }
  if (type === 'quick_reply' && message.quickReplies === undefined) {
    issues.push({ path: [...path, 'quickReplies'], message: 'is missing; type: quick_reply needs quickReplies: [Yes, No]' });
  }
  if (type !== 'quick_reply' && message.quickReplies !== undefined) {
    issues.push({ path: [...path, 'quickReplies'], message: `are sent only with type: quick_reply (this message is ${type}); set type: quick_reply or remove them` });
  }
  if (type === 'whatsapp_template' && message.template === undefined) {
    issues.push({ path: [...path, 'template'], message: 'is missing; type: whatsapp_template needs template: {name: welcome_v2, language: en, body: "Hi {{first_name}}, welcome!"}' });
  }
  if (type !== 'whatsapp_template' && message.template !== undefined) {
    issues.push({ path: [...path, 'template'], message: `is sent only with type: whatsapp_template (this message is ${type}); set type: whatsapp_template or remove it` });
  }
  issues.push(...templateRules([...path, 'template'], asRecord(message.template)));
  return issues;
}

/**
 * The parts of a WhatsApp template: placeholders well formed; a name or language without a
 * placeholder must be one WhatsApp can have approved (one with a placeholder is checked row by row).
 */
function templateRules(path: YamlPath, template: Loose | undefined): PathIssue[] {
  if (template === undefined) return [];
  const issues: PathIssue[] = [];
  const literalRules: Record<string, ((value: string) => string | undefined) | undefined> = {
    name: templateNameProblem,
    language: languageCodeProblem,
    body: undefined,
  };
  for (const [key, literalRule] of Object.entries(literalRules)) {
    const value = asText(template[key]);
    if (value === undefined) continue;
    const parsed = parseTemplate(value);
    const problem = parsed.problem ?? (parsed.columns.length === 0 ? literalRule?.(value) : undefined);
    if (problem !== undefined) issues.push({ path: [...path, key], message: problem });
  }
  return issues;
}

/** A URL starting with a placeholder is checked per row; otherwise its literal parts must be http(s). */
function attachmentUrlProblem(url: string): string | undefined {
  if (url.trimStart().startsWith('{{')) return undefined;
  const filled = fillPlaceholders(url, 'x');
  const fix = 'write an http(s) URL, e.g. https://example.com/{{image_file}}';
  if (!URL.canParse(filled)) return `${JSON.stringify(url)} is not a URL; ${fix}`;
  const protocol = new URL(filled).protocol;
  return protocol === 'http:' || protocol === 'https:' ? undefined : `${JSON.stringify(url)} uses ${protocol.replace(/:$/, '')}; ${fix}`;
}

function tagRules(path: YamlPath, tags: Loose | undefined): PathIssue[] {
  if (tags === undefined || !Array.isArray(tags.static) || !Array.isArray(tags.remove)) return [];
  const added = new Set((tags.static as unknown[]).map(String));
  return (tags.remove as unknown[]).flatMap((tag, index) =>
    added.has(String(tag))
      ? [{ path: [...path, 'remove', index], message: `tag "${String(tag)}" is also in tags.static; keep it in one of the two lists` }]
      : [],
  );
}

/** Names are compared without case: on macOS and Windows `Demo` and `demo` would share files. */
function uniqueNameRule(jobs: readonly unknown[]): PathIssue[] {
  const seen = new Map<string, number>();
  const issues: PathIssue[] = [];
  jobs.forEach((job, index) => {
    const name = asText(asRecord(job)?.name);
    if (name === undefined) return;
    const first = seen.get(name.toLowerCase());
    if (first === undefined) seen.set(name.toLowerCase(), index);
    else {
      issues.push({
        path: ['jobs', index, 'name'],
        message: `"${name}" is already the name of ${formatYamlPath(['jobs', first])}; give each job its own name (it names the report and state files)`,
      });
    }
  });
  return issues;
}

/**
 * Two jobs writing one state file would overwrite each other's memory of what was written. Files
 * only: two jobs naming one database keep apart there, each under its own identity (job name,
 * channel, key field).
 */
function uniqueStateRule(jobs: readonly unknown[]): PathIssue[] {
  const seen = new Map<string, { index: number; explicit: boolean }>();
  const issues: PathIssue[] = [];
  jobs.forEach((job, index) => {
    const record = asRecord(job);
    const name = asText(record?.name);
    const explicit = record?.state !== undefined;
    const state = explicit ? asText(record?.state) : name === undefined ? undefined : defaultStatePath(name);
    if (state === undefined || looksLikeUrl(state)) return;
    const file = normalize(state);
    const first = seen.get(file);
    if (first === undefined) seen.set(file, { index, explicit });
    // Two default paths only collide when the names do, which uniqueNameRule reports.
    else if (explicit || first.explicit) {
      issues.push({
        path: ['jobs', index, 'state'],
        message: `${JSON.stringify(state)} is also the state file of ${formatYamlPath(['jobs', first.index])}; give each job its own state file, or state: false`,
      });
    }
  });
  return issues;
}
