/**
 * The benchmark's customer CSV: one key, 8 mapped fields and 3 tags a row, generated on the fly
 * (big inputs are generated, not committed). The values are deterministic in the row number, so
 * the minimum number of calls a file allows can be derived from the generator itself.
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';

export const CUSTOMER_HEADER = ['customer_id', 'first_name', 'last_name', 'email', 'phone', 'locale', 'timezone', 'plan', 'segments'] as const;

/** Custom fields the benchmark job writes besides the key (see `jobs-file.ts`). */
export const FIELDS_PER_ROW = 8;
/** Tags in every row's `segments` cell. */
export const TAGS_PER_ROW = 3;

/** How a row of the "5% changed" file differs from the first file. */
export interface RowChange {
  /** `first_name` differs: one update call. */
  readonly field: boolean;
  /** One of the three tags is replaced by a new one: one add-tags call (tags are only added). */
  readonly tag: boolean;
}

const LOCALES = ['en_GB', 'fr_FR', 'de_DE', 'es_ES'] as const;
const PLANS = ['basic', 'pro', 'enterprise'] as const;

/** The key of row `index` (1-based). */
export function customerKey(index: number): string {
  return `C${String(index).padStart(7, '0')}`;
}

/** The cells of row `index` (1-based), changed as `change` says. */
export function customerCells(index: number, change?: RowChange): string[] {
  const tags = [`tier-${index % 5}`, `region-${index % 7}`, change?.tag === true ? 'promo' : 'newsletter'];
  return [
    customerKey(index),
    change?.field === true ? `Renamed${index}` : `First${index}`,
    `Last${index}`,
    // Mixed case on purpose: the job's `email` transform lowercases it, as a CRM export needs.
    `User${index}@Example.com`,
    // Singapore mobile numbers without the country code: the `phone` transform makes them E.164.
    `9${String(index % 10_000_000).padStart(7, '0')}`,
    LOCALES[index % LOCALES.length] ?? 'en_GB',
    String(index % 12),
    PLANS[index % PLANS.length] ?? 'basic',
    tags.join(';'),
  ];
}

/**
 * The change of row `index` in the "5% changed" file: every 20th row gets a new first name, and
 * every 40th row also a new tag. 5% of the rows change; half of those need two calls, half one.
 */
export function fivePercentChange(index: number): RowChange | undefined {
  if (index % 20 !== 0) return undefined;
  return { field: true, tag: index % 40 === 0 };
}

/**
 * Writes `rows` rows to `path` (rows `first` to `first + rows - 1`), streamed with backpressure so
 * a file of a million rows costs no memory here either.
 */
export async function writeCustomerFile(path: string, rows: number, changeOf: (index: number) => RowChange | undefined = () => undefined, first = 1): Promise<void> {
  const out = createWriteStream(path, { encoding: 'utf8' });
  const done = once(out, 'finish');
  let chunk = `${CUSTOMER_HEADER.join(',')}\n`;
  for (let index = first; index < first + rows; index++) {
    chunk += `${customerCells(index, changeOf(index)).join(',')}\n`;
    if (chunk.length >= 64 * 1024) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.end(chunk);
  await done;
}
