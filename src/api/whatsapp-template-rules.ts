/**
 * What WhatsApp accepts as a template's name and language, checked before a template leaves:
 * by the config on the literal values of jobs.yaml, by the renderer on each row's values, and by
 * the client before the call. A name or language WhatsApp cannot have approved would only be
 * refused by the platform, one call per row.
 */

/** WhatsApp's rule for template names: lowercase letters, digits and underscores. */
const TEMPLATE_NAME = /^[a-z0-9_]{1,512}$/;
/** WhatsApp's language codes: `en`, `fil`, or a language and a region, `en_US`, `pt_BR`. */
const LANGUAGE_CODE = /^[a-z]{2,3}(_[A-Z]{2})?$/;

/** Why `name` cannot be an approved template's name; undefined when it can. */
export function templateNameProblem(name: string): string | undefined {
  if (TEMPLATE_NAME.test(name)) return undefined;
  return `${JSON.stringify(name)} is not a WhatsApp template name; write the approved template's name: lowercase letters, digits and underscores, e.g. welcome_v2`;
}

/** Why `code` is not a WhatsApp language code; undefined when it is. */
export function languageCodeProblem(code: string): string | undefined {
  if (LANGUAGE_CODE.test(code)) return undefined;
  return `${JSON.stringify(code)} is not a WhatsApp language code; write the language of the approved template, e.g. en, en_US or pt_BR`;
}
