/**
 * What a person reads when the command line is wrong: one error that names the mistake and, when
 * a known word is close, the word meant; then the command's usage line and where the help is. The
 * full help is not dumped before every error (it buries the one line that matters).
 */
import { didYouMean } from '../config/did-you-mean.js';

/** The usage line of each command, as README's command table shows it. */
export const COMMAND_USAGE: Readonly<Record<string, string>> = {
  run: 'contact-sync run <jobs.yaml> [--job NAME]... [--dry-run] [--limit N] [--report-dir DIR] [options]',
  validate: 'contact-sync validate <jobs.yaml> [--job NAME]...',
  check: 'contact-sync check <jobs.yaml> [--job NAME]...',
  state: 'contact-sync state show|reset <jobs.yaml> --job NAME',
  emulator: 'contact-sync emulator [--port N] [--host H] [--token TOKEN[:viber]]...',
};

/** Global options that take a value in the next word. */
const GLOBAL_WITH_VALUE = new Set(['--log-format', '--log-level']);

/** The command named in `argv` (its first word that is neither an option nor its value), if any. */
export function commandOf(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (GLOBAL_WITH_VALUE.has(word)) i++;
    else if (!word.startsWith('-')) return word;
  }
  return undefined;
}

/**
 * yargs' complaint made useful: an unknown command or option is named with the closest known
 * one. `knownOptions` are the option names (and aliases) of the command being parsed. An unknown
 * option comes first, as it explains a missing argument (`run --dryrun jobs.yaml` reads
 * `jobs.yaml` as the value of `--dryrun`).
 */
export function explainUsage(message: string, argv: readonly string[], knownOptions: readonly string[]): string {
  const command = commandOf(argv);
  if (command !== undefined && !Object.hasOwn(COMMAND_USAGE, command) && command !== 'schema') {
    const meant = didYouMean(command, Object.keys(COMMAND_USAGE));
    return `unknown command "${command}"${meant === undefined ? '' : `; did you mean "${meant}"?`} The commands are ${Object.keys(COMMAND_USAGE).join(', ')}.`;
  }
  const known = new Set(knownOptions);
  for (const word of argv) {
    if (!word.startsWith('--') || word === '--') continue;
    const name = word.slice(2).split('=')[0]!;
    const plain = name.startsWith('no-') ? name.slice(3) : name;
    if (known.has(name) || known.has(plain)) continue;
    const meant = didYouMean(plain, [...known].filter((option) => option.length > 1 && !/[A-Z]/.test(option)));
    return `unknown option --${name}${meant === undefined ? '' : `; did you mean --${meant}?`}`;
  }
  if (message.startsWith('Not enough non-option arguments')) return 'an argument is missing: the usage below shows what to write';
  return message;
}

/** The lines after the error: the command's usage, then where to read more. */
export function usageFooter(argv: readonly string[]): string {
  const command = commandOf(argv);
  if (command !== undefined && Object.hasOwn(COMMAND_USAGE, command)) {
    return `usage: ${COMMAND_USAGE[command]}\nsee: contact-sync ${command} --help`;
  }
  return `usage: contact-sync <${Object.keys(COMMAND_USAGE).join('|')}> ...\nsee: contact-sync --help`;
}
