/**
 * Decides, per request, which injected fault (if any) and how much latency it meets. Draws come
 * from a seeded PRNG in request order, so one seed and one request sequence give one outcome
 * sequence: failing tests replay.
 */
import prand from 'pure-rand';
import type { RandomGenerator } from 'pure-rand';
import type { ApiOperation } from '../api/wire-types.js';
import type { FaultOptions, LatencyRange } from './options.js';

/** `commitThenDrop`: do the work, then close the socket without an answer. */
export type InjectedFault =
  | 'serverError'
  | 'rateLimited'
  | 'dropConnection'
  | 'resetConnection'
  | 'commitThenDrop'
  | 'hang'
  | 'echoTokenEscaped'
  | 'sendErrorBody'
  | 'sendHtmlBody';

export interface FaultDecision {
  fault: InjectedFault | undefined;
  /** Waited before the rate check: the request's way in. */
  inboundMs: number;
  latencyMs: number;
}

const NO_FAULT: FaultDecision = { fault: undefined, inboundMs: 0, latencyMs: 0 };

export class FaultInjector {
  private rng: RandomGenerator;
  private current: FaultOptions;

  constructor(faults: FaultOptions, seed: number) {
    this.current = faults;
    this.rng = prand.xoroshiro128plus(seed);
  }

  /** Replaces the whole configuration; with a seed the draws restart from it. */
  configure(faults: FaultOptions, seed?: number): void {
    this.current = faults;
    if (seed !== undefined) this.rng = prand.xoroshiro128plus(seed);
  }

  get faults(): FaultOptions {
    return this.current;
  }

  /**
   * On the `v2` surface `sendErrorBody` (v1's 200 with an error envelope) has no counterpart,
   * so it never hits a v2 request.
   */
  decide(operation: ApiOperation, surface: 'v1' | 'v2' = 'v1'): FaultDecision {
    const faults = this.current;
    if (faults.operations !== undefined && !faults.operations.includes(operation)) return NO_FAULT;
    const commitThenDrop =
      operation === 'createContact'
        ? (faults.createCommitThenDrop ?? 0)
        : operation === 'sendMessage'
          ? (faults.sendCommitThenDrop ?? 0)
          : 0;
    // Buckets laid end to end on [0, 1): one draw picks at most one fault.
    const buckets: Array<[InjectedFault, number]> = [
      ['serverError', faults.serverError ?? 0],
      ['rateLimited', faults.rateLimited ?? 0],
      ['dropConnection', faults.dropConnection ?? 0],
      ['resetConnection', faults.resetConnection ?? 0],
      ['commitThenDrop', commitThenDrop],
      ['hang', faults.hang ?? 0],
      ['echoTokenEscaped', faults.echoTokenEscaped ?? 0],
      ['sendErrorBody', operation === 'sendMessage' && surface === 'v1' ? (faults.sendErrorBody ?? 0) : 0],
      ['sendHtmlBody', operation === 'sendMessage' ? (faults.sendHtmlBody ?? 0) : 0],
    ];
    let fault: InjectedFault | undefined;
    if (buckets.some(([, p]) => p > 0)) {
      const draw = this.nextUnit();
      let upper = 0;
      for (const [name, p] of buckets) {
        upper += p;
        if (draw < upper) {
          fault = name;
          break;
        }
      }
    }
    const latencyMs = this.draw(faults.latency);
    // Drawn after the others, and only when set: seeds give the sequences they gave before.
    const inboundMs = this.draw(faults.inboundJitter);
    return { fault, inboundMs, latencyMs };
  }

  /** Whole milliseconds drawn uniformly from the range; 0 without one. */
  private draw(range: LatencyRange | undefined): number {
    return range === undefined || range.maxMs === 0 ? 0 : prand.unsafeUniformIntDistribution(range.minMs, range.maxMs, this.rng);
  }

  /** A float in [0, 1). */
  private nextUnit(): number {
    return (this.rng.unsafeNext() >>> 0) / 0x1_0000_0000;
  }
}
