/** `contact-sync emulator`: its options; the server is `../emulator-command.ts` and `src/emulator/`. */
import { commandModule, wholeNumber, type CommandContext } from './command-context.js';

export const emulatorDefinition = (context: CommandContext) =>
  commandModule({
    command: 'emulator',
    describe: 'serve the local emulator of the Contacts and Messaging API v1 (and v2 with --workspace-token) until interrupted',
    builder: (y) =>
      y
        .option('port', { type: 'string', default: '4010', coerce: wholeNumber('port', 'a TCP port', 4010), describe: 'the port to listen on (0: any free port)' })
        .option('host', { type: 'string', default: '127.0.0.1', describe: 'the address to listen on (0.0.0.0 for every interface)' })
        .option('token', { type: 'string', array: true, default: ['demo-token'], describe: 'a channel token, TOKEN or TOKEN:viber (repeatable)' })
        .option('contacts-rate', { type: 'string', default: '100/min', describe: 'contacts API limit per channel, e.g. 100/min, or off' })
        .option('messages-rate', { type: 'string', default: '25/s', describe: 'messages API limit per channel, or off' })
        .option('workspace-token', { type: 'string', array: true, describe: "a workspace's access token: serves API v2 under /v2, the channels shared as the workspace's (repeatable, up to 10)" })
        .option('v2-rate', { type: 'string', default: '5/s', describe: "API v2's limit per endpoint of the organisation (unverified default), or off" })
        .option('admin-key', { type: 'string', describe: 'key of the admin API (x-admin-key); random and printed by default' })
        .option('email-search', { choices: ['case-insensitive', 'exact'] as const, default: 'case-insensitive' as const, describe: 'how a search matches the email field: as the platform (case-insensitive) or exactly' })
        .option('value-types', { choices: ['strings', 'typed'] as const, default: 'strings' as const, describe: 'contact reads answer values as strings, or true/false and numbers as JSON values (typed)' })
        .option('update-answer-id', { choices: ['contact', 'cus'] as const, default: 'contact' as const, describe: "update contact answers the contact's id, or a cus_ id as the live docs' sample" }),
    handler: async (args) => {
      const { emulatorCommand } = await import('../emulator-command.js');
      context.exit(
        await emulatorCommand(
          {
            port: args.port ?? 4010,
            host: args.host,
            token: args.token,
            contactsRate: args.contactsRate,
            messagesRate: args.messagesRate,
            workspaceToken: args.workspaceToken ?? [],
            v2Rate: args.v2Rate,
            adminKey: args.adminKey,
            emailSearch: args.emailSearch,
            valueTypes: args.valueTypes,
            updateAnswerId: args.updateAnswerId,
          },
          context.io,
          context.logger(args),
        ),
      );
    },
  });
