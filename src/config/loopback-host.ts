import { isIPv4 } from 'node:net';

/**
 * True for the hosts whose traffic never leaves the machine: `localhost`, 127.0.0.0/8 and ::1.
 * Takes `URL.hostname`, which brackets IPv6 and has already normalised forms like `127.1`.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host === '[::1]' || host === '::1') return true;
  return isIPv4(host) && host.startsWith('127.');
}
