/**
 * The PostgreSQL adapter's one way to its database: a worker thread that holds the `pg` clients,
 * and a blocking call the store's (synchronous) methods make to it. docs/decisions.md, "The
 * PostgreSQL adapter behind a synchronous port: a worker the caller waits on".
 *
 * Each call posts one request (one or more statements; opened and/or committed as a transaction
 * when asked) to the worker through a MessageChannel, and the calling thread waits on a shared
 * counter (`Atomics.wait`) until the worker answered (or the timeout passed), then takes the
 * answer with `receiveMessageOnPort`. The worker runs the statements on the store's connection,
 * or on a connection of its own for the run's advisory lock (`client: 'lock'`), which lives as
 * long as the lock must.
 *
 * The worker's source is `pgWorker` below as text (`eval: true`): the same code runs from the .ts
 * sources under jest and from dist/ as .js, so it cannot be a file of its own. It may only use
 * `require('node:worker_threads')` and `require(workerData.pgPath)`.
 */
import { createRequire } from 'node:module';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';

/** One SQL statement and its parameters. */
export interface Statement {
  readonly text: string;
  readonly values?: readonly unknown[];
}

/** A row as `pg` answers it: column name -> value (BIGINT as a number: ms timestamps and ids are safe integers). */
export type Row = Record<string, unknown>;

/** What the worker answered for a failure: pg's SQLSTATE code, or Node's error code (ECONNREFUSED...). */
export interface BridgeError {
  readonly code: string;
  readonly message: string;
}

/** A request failed: its code and message as the worker gave them (never the password: callers say what to print). */
export class BridgeFailure extends Error {
  override readonly name = 'BridgeFailure';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface RunOptions {
  /** Open a transaction before the statements (BEGIN). @default false */
  readonly begin?: boolean;
  /** Commit after them (COMMIT). A failure rolls an open transaction back. @default false */
  readonly commit?: boolean;
  /**
   * Commit only once the WAL is on disk (`synchronous_commit = on` for this transaction): the
   * records whose loss could duplicate a contact or a message. Other commits return once the
   * server has them (the session's `synchronous_commit = off`): a kill of this process loses none,
   * a crash of the server may lose the last ones, as SQLite's `synchronous = NORMAL` (state-store.ts).
   * @default false
   */
  readonly durable?: boolean;
  /** The store's connection, or the advisory lock's. @default 'store' */
  readonly client?: 'store' | 'lock';
  /** How long the caller waits for the answer. @default the bridge's */
  readonly timeoutMs?: number;
}

/** What `pg.Client` is given: a connection string and a connect timeout (the password inside it stays here). */
export interface BridgeConnection {
  readonly connectionString: string;
  readonly connectionTimeoutMillis: number;
  readonly application_name?: string;
}

/** The wait for one answer, unless a call says otherwise: far above any statement of the store. */
const DEFAULT_TIMEOUT_MS = 120_000;

export class SyncBridge {
  readonly #worker: Worker;
  readonly #port: MessagePort;
  readonly #signal: Int32Array;
  readonly #timeoutMs: number;
  #nextId = 1;
  #closed = false;

  private constructor(worker: Worker, port: MessagePort, signal: Int32Array, timeoutMs: number) {
    this.#worker = worker;
    this.#port = port;
    this.#signal = signal;
    this.#timeoutMs = timeoutMs;
  }

  /** Starts the worker (it connects on its first request). */
  static start(connection: BridgeConnection, options: { readonly timeoutMs?: number } = {}): SyncBridge {
    const pgPath = createRequire(import.meta.url).resolve('pg');
    const shared = new SharedArrayBuffer(4);
    const { port1, port2 } = new MessageChannel();
    const worker = new Worker(`(${pgWorker.toString()})()`, {
      eval: true,
      workerData: { pgPath, port: port2, signal: shared, connection },
      transferList: [port2],
    });
    worker.unref();
    port1.unref();
    // A worker that dies answers nothing: the caller's wait times out and says so.
    worker.on('error', () => undefined);
    return new SyncBridge(worker, port1, new Int32Array(shared), options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  }

  /**
   * Runs `statements` in order and returns each one's rows, blocking the calling thread until the
   * worker answered.
   * @throws BridgeFailure with pg's SQLSTATE or Node's code; `ETIMEDOUT` when no answer came in time
   */
  run(statements: readonly Statement[], options: RunOptions = {}): Row[][] {
    if (this.#closed) throw new BridgeFailure('BRIDGE_CLOSED', 'the connection to the database was closed');
    const id = this.#nextId++;
    this.#port.postMessage({ id, statements, begin: options.begin === true, commit: options.commit === true, durable: options.durable === true, client: options.client ?? 'store' });
    const answer = this.#await(id, options.timeoutMs ?? this.#timeoutMs) as { results?: Row[][]; error?: BridgeError } | undefined;
    if (answer === undefined) throw new BridgeFailure('ETIMEDOUT', `the database did not answer within ${Math.round((options.timeoutMs ?? this.#timeoutMs) / 1000)} s`);
    if (answer.error !== undefined) throw new BridgeFailure(answer.error.code, answer.error.message);
    return answer.results ?? [];
  }

  /** Ends both connections (the lock's frees the advisory lock) and the worker. Closing twice is harmless. */
  close(): void {
    if (this.#closed) return;
    try {
      const id = this.#nextId++;
      this.#port.postMessage({ id, end: true });
      this.#await(id, 5_000);
    } finally {
      this.#closed = true;
      this.#port.close();
      void this.#worker.terminate();
    }
  }

  /** The answer of request `id`, or undefined after `timeoutMs`; answers of earlier (timed out) requests are dropped. */
  #await(id: number, timeoutMs: number): unknown {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const seen = Atomics.load(this.#signal, 0);
      const received = receiveMessageOnPort(this.#port);
      if (received !== undefined) {
        if ((received.message as { id: number }).id === id) return received.message;
        continue;
      }
      const left = deadline - Date.now();
      if (left <= 0) return undefined;
      Atomics.wait(this.#signal, 0, seen, left);
    }
  }
}

/* istanbul ignore next: runs in the worker, from its text */
/**
 * The worker: answers `{ id, statements, begin, commit, client }` with `{ id, results }` (each
 * statement's rows) or `{ id, error: { code, message } }`, and `{ id, end }` by ending its
 * clients. A client that failed (its connection lost) fails every later request at once.
 */
function pgWorker(): void {
  /* eslint-disable @typescript-eslint/no-require-imports, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-explicit-any */
  const { workerData } = require('node:worker_threads');
  const pg: any = require(workerData.pgPath);
  const port: any = workerData.port;
  const signal = new Int32Array(workerData.signal);
  // BIGINT (ms timestamps, ids, counts): numbers, as SQLite answers them.
  pg.types.setTypeParser(20, (text: string) => Number(text));
  const clients: Record<string, any> = {};
  // Prepared statement names by text, per connection: the store's statements are a few dozen texts
  // run over and over, parsed and planned once each. Texts beyond the first 500 run unnamed.
  const prepared: Record<string, Map<string, string>> = {};
  const named = (client: string, text: string): { name?: string; text: string } => {
    const names = (prepared[client] ??= new Map<string, string>());
    let name = names.get(text);
    if (name === undefined && names.size < 500) {
      name = `cs${names.size}`;
      names.set(text, name);
    }
    return name === undefined ? { text } : { name, text };
  };
  const inTransaction: Record<string, boolean> = {};
  let failure: { code: string; message: string } | undefined;
  const describe = (error: any): { code: string; message: string } => ({
    code: typeof error?.code === 'string' && error.code !== '' ? error.code : 'PG_FAILED',
    message: String(error?.message ?? error),
  });
  const answer = (id: number, body: object): void => {
    port.postMessage({ id, ...body });
    Atomics.add(signal, 0, 1);
    Atomics.notify(signal, 0);
  };
  const connect = async (name: string): Promise<any> => {
    const client = new pg.Client(workerData.connection);
    client.on('error', (error: any) => {
      failure ??= { code: typeof error?.code === 'string' && error.code !== '' ? error.code : 'ECONNRESET', message: `the connection to the database was lost (${String(error?.message ?? error)})` };
    });
    try {
      await client.connect();
    } catch (error) {
      client.end().catch(() => undefined);
      throw error;
    }
    // Commits return once the server has them; a durable request asks for the disk (RunOptions.durable).
    if (name === 'store') await client.query('SET synchronous_commit = off');
    clients[name] = client;
    return client;
  };
  port.on('message', async (request: any) => {
    if (request.end === true) {
      for (const client of Object.values(clients)) await client.end().catch(() => undefined);
      answer(request.id, { results: [] });
      return;
    }
    const name: string = request.client;
    if (failure !== undefined) {
      answer(request.id, { error: failure });
      return;
    }
    try {
      const client = clients[name] ?? (await connect(name));
      const results: unknown[] = [];
      // A durable request that is not in a transaction is made one, to set its commit's wait.
      const wrap = request.durable === true && request.begin !== true && inTransaction[name] !== true;
      if (request.begin === true || wrap) {
        await client.query(request.durable === true ? 'BEGIN; SET LOCAL synchronous_commit = on' : 'BEGIN');
        inTransaction[name] = true;
      } else if (request.durable === true) {
        await client.query('SET LOCAL synchronous_commit = on');
      }
      // Only a statement with parameters is prepared: a text without (a migration, ANALYZE) may hold several commands.
      for (const statement of request.statements) {
        const query = statement.values === undefined || statement.values.length === 0 ? { text: statement.text } : { ...named(name, statement.text), values: statement.values };
        results.push((await client.query(query)).rows);
      }
      if (request.commit === true || wrap) {
        inTransaction[name] = false;
        await client.query('COMMIT');
      }
      answer(request.id, { results });
    } catch (error) {
      const client = clients[name];
      if (inTransaction[name] === true && client !== undefined && failure === undefined) {
        inTransaction[name] = false;
        await client.query('ROLLBACK').catch(() => undefined);
      }
      answer(request.id, { error: failure ?? describe(error) });
    }
  });
  /* eslint-enable @typescript-eslint/no-require-imports, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-explicit-any */
}
