#!/usr/bin/env node
// Completes package-lock.json with the platform packages the registry reachable from this
// workplace does not serve (it serves the linux builds only). npm ci refuses a lock that lacks
// an optional dependency of a locked package, even one for another platform; with an entry that
// names its os and cpu, npm ci skips it on a machine it does not fit, as it would with a lock made
// against the full registry. Run after any `npm install` that rewrites the lock.
import { readFileSync, writeFileSync } from 'node:fs';

const LOCK = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(LOCK, 'utf8'));

/** os, cpu and libc of a binding from the suffix of its name (the napi-rs naming scheme). */
function platformOf(suffix) {
  const [os, cpu, abi] = suffix.split('-');
  const entry = { os: [os], cpu: [cpu === 'arm' ? 'arm' : cpu] };
  if (os === 'linux' && abi !== undefined) entry.libc = [abi.startsWith('musl') ? 'musl' : 'glibc'];
  return entry;
}

let added = 0;
for (const [path, meta] of Object.entries(lock.packages)) {
  for (const [name, version] of Object.entries(meta.optionalDependencies ?? {})) {
    const match = /^@[^/]+\/[a-z-]*binding-(.+)$/.exec(name);
    const where = `node_modules/${name}`;
    if (match === null || lock.packages[where] !== undefined) continue;
    lock.packages[where] = { version, ...(meta.dev ? { dev: true } : {}), optional: true, ...platformOf(match[1]) };
    added++;
    console.log(`added ${where}@${version} (for ${path})`);
  }
}
writeFileSync(LOCK, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`${added} entries added`);
