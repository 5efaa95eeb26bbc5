/** The machine a benchmark ran on, for the head of RESULTS.md. */
import { readFileSync } from 'node:fs';
import os from 'node:os';

export interface MachineInfo {
  date: string;
  cpuModel: string;
  cores: number;
  memoryGb: number;
  os: string;
  node: string;
  /** 1-minute load average when the run started: a busy (shared) machine shows here. */
  loadAverage: number;
}

export function machineInfo(now: Date): MachineInfo {
  const cpus = os.cpus();
  return {
    date: now.toISOString(),
    cpuModel: cpuModel() ?? cpus[0]?.model ?? 'unknown',
    cores: os.availableParallelism(),
    memoryGb: os.totalmem() / 1024 ** 3,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    loadAverage: os.loadavg()[0] ?? 0,
  };
}

/** /proc/cpuinfo's model name is fuller than os.cpus() on some virtual machines. */
function cpuModel(): string | undefined {
  try {
    return /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim();
  } catch {
    return undefined;
  }
}
