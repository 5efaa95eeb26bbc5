/**
 * A real Prometheus Pushgateway for the tests of `--pushgateway` (Debian's `prometheus-pushgateway`,
 * which `.ci/run` installs when it can). Without the binary those tests are skipped with the reason
 * printed, as the Redis tests are.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { freePort } from './free-port.js';

const BINARY = process.env.PUSHGATEWAY_BIN ?? 'prometheus-pushgateway';
const SKIP_REASON = `${BINARY} is not installed (apt-get install prometheus-pushgateway, or set PUSHGATEWAY_BIN; .ci/run installs it when it can)`;

function installed(): boolean {
  return spawnSync(BINARY, ['--version'], { stdio: 'ignore' }).status === 0;
}

/** `describe(name, body)` when the Pushgateway binary runs; otherwise a visible skip. */
export function describeWithPushgateway(name: string, body: () => void): void {
  if (!installed()) {
    console.log(`${name}: skipped, ${SKIP_REASON}`);
    describe(`${name} (skipped: ${SKIP_REASON})`, () => {
      it.todo(`needs a Pushgateway: ${SKIP_REASON}`);
    });
    return;
  }
  describe(name, body);
}

export interface RunningPushgateway {
  url: string;
  /** The gateway's /metrics page. */
  scrape(): Promise<string>;
  close(): Promise<void>;
}


/** Starts a Pushgateway on 127.0.0.1 (no persistence) and waits, at most 10 s, for it to answer. */
export async function startPushgateway(): Promise<RunningPushgateway> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(BINARY, [`--web.listen-address=127.0.0.1:${port}`], { stdio: 'ignore' });
  const close = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  const scrape = async () => {
    const response = await fetch(`${url}/metrics`);
    return response.text();
  };
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      await scrape();
      return { url, scrape, close };
    } catch {
      if (child.exitCode !== null) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  await close();
  throw new Error(`the Pushgateway did not answer on ${url}`);
}
