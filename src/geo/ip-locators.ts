/**
 * The IP locators by file kind: `ipLocatorOf(path, bytes)` opens a database the caller has read,
 * choosing the reader by the file's extension (`.csv` → {@link RangeTableIpLocator}, `.mmdb` →
 * {@link MmdbIpLocator}). The extension decides, never the content: a file of the wrong kind fails
 * in its reader with a message that says what was expected.
 */
import { IpLocatorError, type IpLocator } from './ip-locator.js';
import { MmdbIpLocator } from './ip-mmdb.js';
import { RangeTableIpLocator } from './ip-range-table.js';

/** Extension (lower case, with its dot) → how a file of that kind is opened. */
export const IP_LOCATOR_KINDS: Readonly<Record<string, (bytes: Uint8Array, origin: string) => IpLocator>> = Object.freeze({
  '.csv': (bytes, origin) => new RangeTableIpLocator(new TextDecoder('utf-8', { fatal: true }).decode(bytes), origin),
  '.mmdb': (bytes, origin) => new MmdbIpLocator(bytes, origin),
});

/**
 * The locator of the database file at `path` (only its name is looked at) holding `bytes`.
 *
 * @throws IpLocatorError for an extension other than those of {@link IP_LOCATOR_KINDS}, a table
 *   that is not UTF-8, or whatever the chosen reader finds wrong (naming `path`).
 */
export function ipLocatorOf(path: string, bytes: Uint8Array): IpLocator {
  const name = path.replace(/^.*[/\\]/, '');
  const dot = name.lastIndexOf('.');
  const ext = dot > 0 ? name.slice(dot).toLowerCase() : '';
  const open = Object.hasOwn(IP_LOCATOR_KINDS, ext) ? IP_LOCATOR_KINDS[ext] : undefined;
  if (open === undefined) {
    const kinds = Object.keys(IP_LOCATOR_KINDS).join(' or ');
    throw new IpLocatorError(
      `${path}: cannot tell what kind of IP database this is from its name: expected ${kinds} (a range table start_ip,end_ip,city,state, or a MaxMind DB)`,
    );
  }
  try {
    return open(bytes, path);
  } catch (err) {
    if (err instanceof IpLocatorError) throw err;
    throw new IpLocatorError(`${path}: ${(err as Error).message}`, { cause: err });
  }
}
