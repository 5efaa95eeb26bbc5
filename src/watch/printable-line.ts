/**
 * A sink's answer as a log line may show it: a Pushgateway's or a proxy's error body can be
 * megabytes of HTML, or carry terminal escapes that repaint the operator's screen (issue 33). Its
 * first line of text is kept, without escapes or other control characters, cut to `maxChars`.
 */

/** ANSI/VT escape sequences: CSI (`ESC [ ... letter`), OSC (`ESC ] ... BEL|ESC \`), and two-byte escapes. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const ESCAPES = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[@-_]?/g;
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** The first non-blank line of `text`, printable, at most `maxChars` characters (then `...`). */
export function printableLine(text: string, maxChars = 200): string {
  const head = text.length > maxChars * 16 ? text.slice(0, maxChars * 16) : text;
  const line =
    head
      .replace(ESCAPES, '')
      .split(/[\r\n]/)
      .map((part) => part.replace(CONTROLS, '').trim())
      .find((part) => part !== '') ?? '';
  return line.length > maxChars ? `${line.slice(0, maxChars)}...` : line;
}
