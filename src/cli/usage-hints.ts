/**
 * What a person reads when the command line is wrong: one error that names the mistake and, when
 * a known word is close, the word meant; then the command's usage line and where the help is. The
 * full help is not dumped before every error (it buries the one line that matters).
 */
import { didYouMean } from '../config/did-you-mean.js';

/**
 * The usage line of each command, as README's command table shows it, in the order of the help:
 * every command a person may type (`schema` is hidden: `npm run schema` types it). A required
 * option's placeholder (`--run RUN_ID`) and the positionals are read from here by the errors below.
 */
export const COMMAND_USAGE: Readonly<Record<string, string>> = {
  run: 'contact-sync run <jobs.yaml> [--job NAME]... [--dry-run] [--limit N] [--report-dir DIR] [options]',
  reconcile: 'contact-sync reconcile <jobs.yaml> [--job NAME]... [--report-dir DIR] [--limit N] [options]',
  undo: 'contact-sync undo <jobs.yaml> --job NAME --run RUN_ID [--key KEY]... [--keep-created] [--delete-created] [--dry-run] [--force] [--report-dir DIR] [--max-duration DURATION]',
  history: 'contact-sync history <jobs.yaml> --job NAME [--key KEY] [--run RUN_ID] [--csv]',
  validate: 'contact-sync validate <jobs.yaml> [--job NAME]...',
  check: 'contact-sync check <jobs.yaml> [--job NAME]...',
  state: 'contact-sync state show|reset|prune|copy <jobs.yaml> --job NAME [--from PATH|URL] [--replace]',
  forget: 'contact-sync forget <jobs.yaml> --job NAME (--key KEY... | --keys-file FILE) [--platform] [--dry-run] [--report-dir DIR]... [--max-duration DURATION]',
  emulator: 'contact-sync emulator [--port N] [--host H] [--token TOKEN[:viber]]...',
};

/** "run, reconcile, ..., state or emulator": the commands, for a sentence. */
export function commandList(): string {
  const names = Object.keys(COMMAND_USAGE);
  return `${names.slice(0, -1).join(', ')} or ${names.at(-1) ?? ''}`;
}

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
  const usage = command === undefined ? undefined : COMMAND_USAGE[command];
  if (command === undefined || usage === undefined) return message.startsWith('Not enough non-option arguments') ? ARGUMENT_MISSING : message;
  // yargs: "Missing required argument: run", "Missing required arguments: job, run".
  const missingOptions = /^Missing required arguments?: (.+)$/.exec(message);
  if (missingOptions !== null) {
    const options = missingOptions[1]!.split(', ').map((name) => optionWithPlaceholder(usage, name));
    return `${command}: ${sentenceList(options)} ${options.length === 1 ? 'is' : 'are'} missing: ${options.length === 1 ? 'it is' : 'they are'} required`;
  }
  // yargs: "Not enough non-option arguments: got 0, need at least 1".
  const missingPositionals = /^Not enough non-option arguments: got (\d+)/.exec(message);
  if (missingPositionals !== null) {
    const missing = positionalsOf(usage).slice(Number(missingPositionals[1]));
    return missing.length === 0 ? ARGUMENT_MISSING : `${command}: ${sentenceList(missing)} ${missing.length === 1 ? 'is' : 'are'} missing; the usage below shows where ${missing.length === 1 ? 'it goes' : 'they go'}`;
  }
  return message;
}

const ARGUMENT_MISSING = 'an argument is missing: the usage below shows what to write';

/** `--run RUN_ID` as the command's usage line writes the option, or `--run` when it shows none. */
function optionWithPlaceholder(usage: string, name: string): string {
  const placeholder = new RegExp(`--${name} ([A-Z][A-Z_]*)`).exec(usage);
  return placeholder === null ? `--${name}` : `--${name} ${placeholder[1]}`;
}

/** The positionals of a usage line: the words after the command before the first option. */
function positionalsOf(usage: string): string[] {
  const words = usage.split(' ').slice(2);
  const firstOption = words.findIndex((word) => word.startsWith('-') || word.startsWith('['));
  return firstOption < 0 ? words : words.slice(0, firstOption);
}

function sentenceList(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/** The lines after the error: the command's usage, then where to read more. */
export function usageFooter(argv: readonly string[]): string {
  const command = commandOf(argv);
  if (command !== undefined && Object.hasOwn(COMMAND_USAGE, command)) {
    return `usage: ${COMMAND_USAGE[command]}\nsee: contact-sync ${command} --help`;
  }
  return `usage: contact-sync <${Object.keys(COMMAND_USAGE).join('|')}> ...\nsee: contact-sync --help`;
}
