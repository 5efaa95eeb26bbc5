/** `contact-sync schema` (hidden): prints jobs.schema.json, for `npm run schema`. */
import { commandModule, type CommandContext } from './command-context.js';

export const schemaDefinition = (context: CommandContext) =>
  commandModule({
    command: 'schema',
    describe: false,
    builder: (y) => y,
    handler: async () => {
      const { schemaCommand } = await import('../schema-command.js');
      context.exit(schemaCommand(context.io));
    },
  });
