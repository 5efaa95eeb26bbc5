/**
 * The Prometheus text format of a job's samples (run-metrics.ts), through prom-client's registry:
 * the format's escaping, HELP and TYPE lines are the library's, not ours. And the way back, for
 * the samples a textfile already holds, which only this program writes (see metrics-textfile.ts).
 */
import { Gauge, Registry } from 'prom-client';
import { METRICS, type MetricName, type MetricSample } from './run-metrics.js';

/** A registry holding `samples` as gauges, for rendering or pushing. */
export function registryOf(samples: readonly MetricSample[]): Registry {
  const registry = new Registry();
  const gauges = new Map<MetricName, Gauge>();
  for (const sample of samples) {
    let gauge = gauges.get(sample.name);
    if (gauge === undefined) {
      const { help, labels } = METRICS[sample.name];
      gauge = new Gauge({ name: sample.name, help, labelNames: [...labels], registers: [registry] });
      gauges.set(sample.name, gauge);
    }
    gauge.set({ ...sample.labels }, sample.value);
  }
  return registry;
}

/** The samples in the Prometheus text exposition format (version 0.0.4). */
export function renderMetrics(samples: readonly MetricSample[]): Promise<string> {
  return registryOf(samples).metrics();
}

const SAMPLE_LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\S+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?\s*/y;

/**
 * The samples of the contract's metrics in a text-format file; lines of other metrics, comments
 * and lines that do not parse are left out (the file is this program's, rewritten whole).
 */
export function parseMetrics(text: string): MetricSample[] {
  const samples: MetricSample[] = [];
  for (const line of text.split('\n')) {
    const match = SAMPLE_LINE.exec(line.trim());
    if (match === null || !(match[1]! in METRICS)) continue;
    const labels = parseLabels(match[2] ?? '');
    const value = Number(match[3]);
    if (labels === undefined || Number.isNaN(value)) continue;
    samples.push({ name: match[1] as MetricName, labels, value });
  }
  return samples;
}

function parseLabels(text: string): Record<string, string> | undefined {
  const labels: Record<string, string> = {};
  LABEL.lastIndex = 0;
  while (LABEL.lastIndex < text.length) {
    const start = LABEL.lastIndex;
    const match = LABEL.exec(text);
    if (match === null || LABEL.lastIndex === start) return undefined;
    labels[match[1]!] = match[2]!.replace(/\\(.)/g, (_all, char: string) => (char === 'n' ? '\n' : char));
  }
  return labels;
}
