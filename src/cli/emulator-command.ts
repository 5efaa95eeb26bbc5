/** `contact-sync emulator`: serves the emulator until SIGINT or SIGTERM. */
import type { Logger } from 'pino';
import { parseRate } from '../config/rate.js';
import { EmulatorOptionsError, parseTokenFlag, startEmulator, type EmailSearch, type RunningEmulator, type UpdateAnswerId, type ValueTypes } from '../emulator/index.js';
import type { CliIo } from './cli-io.js';
import { EXIT } from '../exit-codes.js';
import { UsageError } from './usage-error.js';
import type { Rate } from '../limits.js';

/** `100/min`, `25/s`, or `off`, as the banner shows a limit in effect. */
function shownRate(rate: Rate | undefined): string {
  return rate === undefined ? 'off' : `${rate.limit} per ${rate.periodMs} ms`;
}

export interface EmulatorArgs {
  port: number;
  host: string;
  token: string[];
  contactsRate: string;
  messagesRate: string;
  /** Empty: no v2 surface. */
  workspaceToken: string[];
  v2Rate: string;
  adminKey: string | undefined;
  emailSearch: EmailSearch;
  valueTypes: ValueTypes;
  updateAnswerId: UpdateAnswerId;
}

/**
 * The emulator started, or its options refused as the usage error they are (exit 2, issue 42):
 * each problem names the option; the flags are the CLI's names of them.
 */
async function startOrRefuse(options: Parameters<typeof startEmulator>[0]): Promise<RunningEmulator> {
  try {
    return await startEmulator(options);
  } catch (error) {
    if (error instanceof EmulatorOptionsError) {
      throw new UsageError(`the emulator's options are refused: ${error.problems.join('; ')}; correct the flags (--token, --workspace-token, --admin-key, the rates), then start it again`);
    }
    throw error;
  }
}

export async function emulatorCommand(args: EmulatorArgs, io: CliIo, logger: Logger): Promise<number> {
  const rate = (text: string, flag: string) => {
    if (text === 'off') return undefined;
    try {
      return parseRate(text);
    } catch (error) {
      throw new UsageError(`${flag}: ${(error as Error).message}; or write off`);
    }
  };
  const contacts = rate(args.contactsRate, '--contacts-rate');
  const messages = rate(args.messagesRate, '--messages-rate');
  const v2 = rate(args.v2Rate, '--v2-rate');
  const workspace = args.workspaceToken.length > 0;
  const emulator = await startOrRefuse({
    port: args.port,
    host: args.host,
    channels: args.token.map(parseTokenFlag),
    // Each group on its own: `--messages-rate off` is off whatever --contacts-rate says.
    rateLimits: { contacts: contacts ?? false, messages: messages ?? false, v2: v2 ?? false },
    ...(workspace ? { workspaceTokens: args.workspaceToken } : {}),
    ...(args.adminKey === undefined ? {} : { adminKey: args.adminKey }),
    emailSearch: args.emailSearch,
    valueTypes: args.valueTypes,
    updateAnswerId: args.updateAnswerId,
  });
  const channels = args.token.map((_, index) => index + 1);
  io.stdout.write(
    `Emulator of the Contacts and Messaging API v1 at ${emulator.url}\n` +
      `  channel tokens: ${args.token.join(', ')}\n` +
      `  limits per channel: contacts ${shownRate(contacts)}, messages ${shownRate(messages)}\n` +
      `  answers: email search ${args.emailSearch}, values as ${args.valueTypes}, update id ${args.updateAnswerId}\n` +
      (workspace
        ? `API v2 at ${emulator.v2Url}\n` +
          `  workspace tokens: ${args.workspaceToken.join(', ')} (${channels.length === 1 ? 'channel 1 is its channel' : `channels ${channels.join(', ')} are its channels`}, one contact store)\n` +
          `  limit per endpoint of the organisation: ${shownRate(v2)}\n`
        : '') +
      `  admin API: ${emulator.origin}/__admin/ with header x-admin-key: ${emulator.adminKey}\n` +
      'Stop it with Ctrl-C.\n',
  );
  logger.debug({ url: emulator.url }, 'emulator listening');
  const signal = await new Promise<'SIGINT' | 'SIGTERM'>((resolve) => {
    io.signals.on('SIGINT', () => resolve('SIGINT'));
    io.signals.on('SIGTERM', () => resolve('SIGTERM'));
  });
  await emulator.close();
  logger.info({ signal }, 'emulator stopped');
  return EXIT.ok;
}
