/** What the CLI touches of the process, passed in so tests run commands in-process. */
export interface CliIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: Record<string, string | undefined>;
  cwd: string;
  /** stderr is a terminal: draw a progress bar instead of progress lines. */
  isTTY: boolean;
  /** Where SIGINT / SIGTERM arrive; the process by default, an EventEmitter in tests. */
  signals: Pick<NodeJS.EventEmitter, 'on' | 'off'>;
  /** Ends the process at once (a second signal); absent in tests, where the command just returns. */
  exit?: (code: number) => void;
  /** What `--input -` reads, opened only when asked (the process's stdin by default); absent in tests that pipe nothing. */
  stdin?: () => NodeJS.ReadableStream & { isTTY?: boolean };
  /** Asks a yes/no question on the terminal; absent when stdin is not one (cron, CI). */
  confirm?: (question: string) => Promise<boolean>;
}

export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    isTTY: process.stderr.isTTY === true,
    signals: process,
    exit: (code) => process.exit(code),
    stdin: () => process.stdin,
    ...(process.stdin.isTTY === true ? { confirm: askOnTerminal } : {}),
  };
}

async function askOnTerminal(question: string): Promise<boolean> {
  const { createInterface } = await import('node:readline/promises');
  const terminal = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await terminal.question(question)).trim());
  } finally {
    terminal.close();
  }
}
