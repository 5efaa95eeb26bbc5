/**
 * Whether a metrics textfile can be written where it is asked for, checked before any call
 * (exit 2). Apart from the writer so that a run without metrics does not load prom-client.
 */
import { accessSync, constants } from 'node:fs';
import { dirname } from 'node:path';

/** Why the textfile cannot be written, said before any call; undefined when it can. */
export function metricsTextfileProblem(path: string): string | undefined {
  try {
    accessSync(dirname(path), constants.W_OK);
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    return code === 'ENOENT' ? `its folder ${dirname(path)} does not exist (node_exporter's --collector.textfile.directory)` : `its folder ${dirname(path)} cannot be written (${code})`;
  }
}
