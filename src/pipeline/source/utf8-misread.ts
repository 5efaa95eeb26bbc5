/**
 * A UTF-8 file read as windows-1252 (or any other one-byte encoding) decodes without a single bad
 * byte: "Renée" is read "RenÃ©e", and would reach the platform so. The opposite mistake
 * (windows-1252 read as UTF-8) shows itself as bytes that are not valid; this one has to be looked
 * for. A text that, encoded back into the one-byte encoding, is valid UTF-8 holding more than
 * ASCII was UTF-8. Real windows-1252 text almost never is: it would need a letter from Â to ô
 * followed at once by one to three of the symbols 0x80 to 0xBF (€ ‚ „ … ‰ « ° ± ¿ ...), which
 * names, addresses and notes do not hold.
 */
import { isUtf8 } from 'node:buffer';
import iconv from 'iconv-lite';

/** Any character beyond ASCII: only such texts can have been misread. */
const BEYOND_ASCII = /[\u0080-\uffff]/;

/** Every byte value, to find out whether an encoding spends one byte per character. */
const EVERY_BYTE = Buffer.from(Array.from({ length: 256 }, (_, byte) => byte));

/**
 * For a one-byte encoding other than UTF-8: a check that returns the text a misread one was
 * meant to be (its UTF-8 reading), or undefined when it reads right. Undefined for UTF-8 and the
 * encodings of several bytes a character (UTF-16, Shift JIS...), where the question does not arise.
 */
export function utf8MisreadCheck(encoding: string): ((text: string) => string | undefined) | undefined {
  const label = encoding.toLowerCase();
  if (label === 'utf-8' || label === 'utf8' || !iconv.encodingExists(encoding)) return undefined;
  if (iconv.decode(EVERY_BYTE, encoding).length !== EVERY_BYTE.length) return undefined;
  return (text) => {
    if (!BEYOND_ASCII.test(text)) return undefined;
    const bytes = iconv.encode(text, encoding);
    // A character the encoding lacks is encoded as "?": only bytes beyond ASCII are evidence.
    return isUtf8(bytes) && bytes.some((byte) => byte >= 0x80) ? bytes.toString('utf8') : undefined;
  };
}
