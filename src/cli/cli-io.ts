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
  endQuietlyOnClosedPipe(process.stdout);
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

const quieted = new WeakSet<NodeJS.WritableStream>();

/**
 * `contact-sync state show ... | head` closes the pipe once `head` has its lines: the reader asked
 * for no more, which is not the command's failure (git and coreutils behave so). Writes to a
 * closed pipe are dropped, the command ends with its own exit code and no stack trace; a run
 * piped to `head` still finishes its rows and reports. Any other error of stdout stays fatal.
 */
export function endQuietlyOnClosedPipe(stdout: NodeJS.WritableStream): void {
  if (quieted.has(stdout)) return;
  quieted.add(stdout);
  stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
}
