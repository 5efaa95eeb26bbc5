/** Requests the workspace received through v2, per endpoint: what tests count instead of time. */
import type { OperationCounter } from '../call-counters.js';
import { WindowPeak } from '../sliding-window.js';
import { V2_ENDPOINT_LIST } from './v2-paths.js';

export interface V2Counters {
  /** Keyed by endpoint name (`GET /contact/{identifier}`); every endpoint is present. */
  byEndpoint: Record<string, OperationCounter>;
  total: OperationCounter;
  /**
   * Per endpoint, the most requests that reached its rate check in any one window of v2's rate
   * (answered 429 or not); 0 without a limit. Over the limit, the server saw one call too many.
   */
  mostInAnyWindow: Record<string, number>;
}

export class EndpointCounterSet {
  private counters = emptyCounters();
  private readonly peaks = new Map<string, WindowPeak>();

  /** `periodMs`: the window of v2's rate, for `mostInAnyWindow`; undefined without a limit. */
  constructor(private readonly periodMs: number | undefined) {}

  received(endpoint: string): void {
    this.entry(endpoint).received += 1;
    this.counters.total.received += 1;
  }

  rateLimited(endpoint: string): void {
    this.entry(endpoint).rateLimited += 1;
    this.counters.total.rateLimited += 1;
  }

  faulted(endpoint: string): void {
    this.entry(endpoint).faulted += 1;
    this.counters.total.faulted += 1;
  }

  /** A request reached the endpoint's rate check at `arrivalMs` (emulator clock). */
  arrived(endpoint: string, arrivalMs: number): void {
    if (this.periodMs === undefined) return;
    let peak = this.peaks.get(endpoint);
    if (peak === undefined) {
      peak = new WindowPeak(this.periodMs);
      this.peaks.set(endpoint, peak);
    }
    this.counters.mostInAnyWindow[endpoint] = Math.max(this.counters.mostInAnyWindow[endpoint] ?? 0, peak.add(arrivalMs));
  }

  snapshot(): V2Counters {
    return structuredClone(this.counters);
  }

  reset(): void {
    this.counters = emptyCounters();
    this.peaks.clear();
  }

  private entry(endpoint: string): OperationCounter {
    const counter = this.counters.byEndpoint[endpoint];
    if (counter === undefined) throw new Error(`emulator: "${endpoint}" is not a v2 endpoint`);
    return counter;
  }
}

function emptyCounters(): V2Counters {
  const names = V2_ENDPOINT_LIST.map((endpoint) => endpoint.name);
  return {
    byEndpoint: Object.fromEntries(names.map((name) => [name, { received: 0, rateLimited: 0, faulted: 0 }])),
    total: { received: 0, rateLimited: 0, faulted: 0 },
    mostInAnyWindow: Object.fromEntries(names.map((name) => [name, 0])),
  };
}
