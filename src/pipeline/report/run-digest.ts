/**
 * What the run report needs of the rows, gathered as they are written (memory stays flat: counts,
 * and the first few lines of each failure code): failures by code, and the write calls the data
 * needed at the least (a create per new contact, an update per 30 changed fields, a tag call per
 * the surface's `tagsPerCall` tags added or removed, a send per message sent), and the departed step's writes.
 */
import { MAX_FIELDS_PER_CALL } from '../../limits.js';
import { countedAs, type CallLimits, type Operation } from '../row/plan.js';
import type { ReportErrorCode } from './error-codes.js';
import type { RowResult } from './row-outcome.js';

/** Lines shown per failure code. */
const FIRST_LINES = 5;
/** Lines of changes.csv the run report shows. */
export const FIRST_CHANGES = 20;

/** A line of changes.csv as the run report shows it. */
export interface ShownChange {
  readonly key: string;
  readonly contactId: string;
  readonly field: string;
  readonly platformValue: string;
  readonly fileValue: string;
}

export interface FailureGroup {
  code: ReportErrorCode;
  count: number;
  /** The first lines that failed with it, with their message. */
  first: Array<{ line: number; key: string; message: string }>;
}

export class RunDigest {
  readonly #failures = new Map<ReportErrorCode, FailureGroup>();
  readonly minimumWrites: Record<'createContact' | 'updateContact' | 'addTags' | 'removeTags' | 'sendMessage', number> = {
    createContact: 0,
    updateContact: 0,
    addTags: 0,
    removeTags: 0,
    sendMessage: 0,
  };

  /** `limits`: what one write call of the platform's surface takes (its `tagsPerCall`). */
  constructor(private readonly limits: CallLimits) {}

  /** The first lines of changes.csv, and how many it has. */
  readonly changes: { first: ShownChange[]; count: number } = { first: [], count: 0 };

  add(result: RowResult): void {
    if (result.outcome === 'failed' && result.errorCode !== '') this.#failure(result.errorCode, result);
    if ((result.outcome === 'created' || result.outcome === 'updated') && result.changes !== undefined) {
      this.changes.count += result.changes.length;
      for (const change of result.changes.slice(0, FIRST_CHANGES - this.changes.first.length)) {
        this.changes.first.push({ key: result.key, contactId: change.contactId !== '' ? change.contactId : result.contactId, field: change.field, platformValue: change.platformValue ?? '', fileValue: change.fileValue ?? '' });
      }
    }
    const fields = result.fieldsChanged.length;
    if (result.outcome === 'created') {
      this.minimumWrites.createContact += result.contactId.split(';').filter((id) => id !== '').length || 1;
      // The create carries up to 30 fields, the key among them; the rest go in updates.
      this.minimumWrites.updateContact += Math.ceil(Math.max(0, fields - MAX_FIELDS_PER_CALL) / MAX_FIELDS_PER_CALL);
    } else if (result.outcome === 'updated') {
      this.minimumWrites.updateContact += Math.ceil(fields / MAX_FIELDS_PER_CALL);
    }
    if (result.outcome === 'created' || result.outcome === 'updated') {
      this.minimumWrites.addTags += Math.ceil(result.tagsAdded.length / this.limits.tagsPerCall);
      this.minimumWrites.removeTags += Math.ceil(result.tagsRemoved.length / this.limits.tagsPerCall);
    }
    if (result.messageStatus === 'sent') this.minimumWrites.sendMessage += 1;
  }

  /**
   * The departed step's writes (`onMissing`): each changed key's calls are its plan's, which is
   * already the least (a tag call per `tagsPerCall` tags, an update per 30 fields). Without them the table
   * showed its calls as waste.
   */
  addDepartedWrites(operations: readonly Pick<Operation, 'kind'>[]): void {
    for (const operation of operations) this.minimumWrites[countedAs(operation.kind)] += 1;
  }

  /** Failure codes, the most frequent first. */
  failures(): FailureGroup[] {
    return [...this.#failures.values()].sort((a, b) => b.count - a.count || a.code.localeCompare(b.code));
  }

  #failure(code: ReportErrorCode, result: RowResult): void {
    const group = this.#failures.get(code) ?? { code, count: 0, first: [] };
    group.count += 1;
    if (group.first.length < FIRST_LINES) group.first.push({ line: result.line, key: result.key, message: result.errorMessage });
    this.#failures.set(code, group);
  }
}
