/**
 * A guard refused the run before its first write (`guards:`, docs/configuration.md): exit 2, as
 * any problem found before a row was taken; the metrics, the webhook and the heartbeat tell it as a
 * night that did not succeed.
 */
import { ContactSyncError } from '../../failure/contact-sync-error.js';
import type { GuardName, GuardRefusal } from './guard-verdict.js';

export class GuardRefusedError extends ContactSyncError<'GUARD_REFUSED'> {
  override readonly name = 'GuardRefusedError';
  readonly code = 'GUARD_REFUSED';
  readonly guards: readonly GuardName[];

  constructor(
    readonly job: string,
    refusals: readonly GuardRefusal[],
  ) {
    super(`job "${job}": refused by its guards before any write; nothing was done:\n${refusals.map((refusal) => `- ${refusal.guard}: ${refusal.message}`).join('\n')}`);
    this.guards = [...new Set(refusals.map((refusal) => refusal.guard))];
  }

  get context(): Readonly<Record<string, unknown>> {
    return { job: this.job, guards: this.guards };
  }
}
