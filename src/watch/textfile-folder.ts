/**
 * Whether a metrics textfile can be written where it is asked for, checked before any call
 * (exit 2). Apart from the writer so that a run without metrics does not load prom-client.
 */
import { accessSync, constants, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { notRegularFileKind } from '../safe-file.js';

/** Why the textfile cannot be written, and what to do, said before any call. */
export interface TextfileProblem {
  readonly reason: string;
  readonly fix: string;
}

/** A sample or a HELP/TYPE line of one of this program's metrics (run-metrics.ts names them all contact_sync_*). */
const OWN_METRIC_LINE = /^(?:# (?:HELP|TYPE) )?contact_sync_[a-zA-Z0-9_:]*[\s{]/m;

const CHOOSE_ANOTHER = 'choose another with --metrics-file (or metrics.textfile)';

/** Why the textfile cannot be written, said before any call; undefined when it can. */
export function metricsTextfileProblem(path: string): TextfileProblem | undefined {
  try {
    accessSync(dirname(path), constants.W_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    const reason = code === 'ENOENT' ? `its folder ${dirname(path)} does not exist (node_exporter's --collector.textfile.directory)` : `its folder ${dirname(path)} cannot be written (${code})`;
    return { reason, fix: `create the folder or ${CHOOSE_ANOTHER}` };
  }
  return existingFileProblem(path);
}

/**
 * The file is replaced whole at the job's end: one that is not this program's textfile (a
 * mistyped path naming another file) would be lost, so it is refused rather than replaced.
 */
function existingFileProblem(path: string): TextfileProblem | undefined {
  const kind = notRegularFileKind(path);
  if (kind !== undefined) return { reason: `it is ${kind}, not a file`, fix: `name the textfile itself, or ${CHOOSE_ANOTHER}` };
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return { reason: `it cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`, fix: `give this user read access to it, or ${CHOOSE_ANOTHER}` };
  }
  if (text.trim() === '' || OWN_METRIC_LINE.test(text)) return undefined;
  return {
    reason: 'it exists and is not a metrics textfile of contact-sync (it holds no contact_sync_ metric), and it would be replaced',
    fix: `check the path, or ${CHOOSE_ANOTHER}; remove the file if it is not needed`,
  };
}
