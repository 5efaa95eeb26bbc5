/**
 * Maps an exception that escaped a command to its exit code and the message a user reads.
 * Input problems found before any row (config, usage, an unreadable file, a header missing a
 * column) are exit 2; anything else stopped a job mid-way and is exit 3.
 */
import { RateLimiterUnavailableError } from '../api/rate-limiter-unavailable-error.js';
import { ConfigError } from '../config/index.js';
import { StateStoreError } from '../state/state-store-error.js';
import { SourceError } from '../pipeline/source/source-error.js';
import { EXIT } from './exit-codes.js';
import { UsageError, UsageErrorFromYargs } from './usage-error.js';
import { LockHeldError } from '../lock/job-lock.js';
import { ReportWriteError } from '../pipeline/report/report.js';

export interface Failure {
  exitCode: number;
  code: string;
  message: string;
  /** Print the command's usage before the message. */
  showUsage: boolean;
}

export function describeFailure(error: unknown): Failure {
  if (error instanceof ReportWriteError) {
    return { exitCode: EXIT.aborted, code: 'REPORT_WRITE_FAILED', message: `${error.message}; free space on its disk or choose another folder with --report-dir, then run again`, showUsage: false };
  }
  if (error instanceof LockHeldError) return { exitCode: EXIT.locked, code: error.code, message: error.message, showUsage: false };
  if (error instanceof UsageErrorFromYargs) return { exitCode: EXIT.usage, code: 'USAGE', message: error.message, showUsage: true };
  if (error instanceof UsageError || error instanceof ConfigError || error instanceof SourceError || error instanceof StateStoreError) {
    return { exitCode: EXIT.usage, code: error.code, message: error.message, showUsage: false };
  }
  // Unreachable at the start is exit 2 (no row taken); lost later, it stopped a job: exit 3.
  if (error instanceof RateLimiterUnavailableError) {
    return { exitCode: error.phase === 'start' ? EXIT.usage : EXIT.aborted, code: error.code, message: error.message, showUsage: false };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { exitCode: EXIT.aborted, code: 'UNEXPECTED', message, showUsage: false };
}
