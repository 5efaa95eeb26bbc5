/**
 * Defaults of jobs.yaml, in one place: the schema shows them to editors (JSON Schema `default`),
 * the normaliser applies them and the rules reason with them.
 */
import { DEFAULT_CONTACTS_RATE, DEFAULT_MESSAGES_RATE } from '../limits.js';
import { formatRate } from './rate.js';

export const CONFIG_DEFAULTS = {
  channelType: 'generic',
  /** The platform's API v1 unless a connection says `api: v2`. */
  api: 'v1',
  allowInsecure: false,
  /** `100/min` (spec section 8). */
  contactsRate: formatRate(DEFAULT_CONTACTS_RATE),
  /** `25/s` (spec section 8). */
  messagesRate: formatRate(DEFAULT_MESSAGES_RATE),
  delimiter: 'auto',
  encoding: 'utf-8',
  mode: 'upsert',
  onDuplicate: 'fail',
  onDuplicateRows: 'last',
  trim: true,
  emptyValues: 'ignore',
  tagSeparator: ';',
  messageWhen: 'created',
  messageType: 'text',
  forceCancelSurvey: false,
  repeat: false,
  /** `onMissing.action`: departed keys are left as they are unless the job says otherwise. */
  onMissingAction: 'keep',
  /** `onMissing.maxShare`: more known keys missing than this from a complete run is a broken export. */
  onMissingMaxShare: '10%',
  /** Rows in flight at once. */
  concurrency: 8,
  /** `connections.*.timeouts` (docs/reliability.md, "A dead or throttling platform"). */
  requestTimeout: '30s',
  maxPages: 1000,
  maxRetryAfter: '2m',
  unavailableAfterAttempts: 20,
  unavailableAfter: '5m',
  /** `notify.on`: a webhook is told of the nights that went wrong, not of every night. */
  notifyOn: 'failure',
} as const;

/** Bounds of `concurrency`: beyond 64 rows in flight the rate limit, not concurrency, is the cap. */
export const CONCURRENCY_RANGE = { min: 1, max: 64 } as const;

/** Where a job keeps its state unless `state:` says otherwise (relative to the jobs file). */
export function defaultStatePath(jobName: string): string {
  return `.contact-sync/${jobName}.db`;
}
