/** Everything the emulator holds, shared by the API routes, the admin routes and the in-process API. */
import { Channel } from './channel.js';
import type { UpdateAnswerId, ValueTypes } from './contact-answer.js';
import { ContactIdSequence } from './contact-id-sequence.js';
import { FaultInjector } from './faults.js';
import type { ResolvedOptions } from './validate-options.js';

export class EmulatorState {
  readonly faults: FaultInjector;
  readonly allowedFields: ReadonlySet<string> | undefined;
  readonly valueTypes: ValueTypes;
  readonly updateAnswerId: UpdateAnswerId;
  readonly now: () => number;
  readonly adminKey: string;
  private readonly byToken = new Map<string, Channel>();
  private readonly byName = new Map<string, Channel>();

  constructor(private readonly options: ResolvedOptions) {
    this.faults = new FaultInjector(options.faults, options.seed);
    this.allowedFields = options.allowedFields;
    this.valueTypes = options.valueTypes;
    this.updateAnswerId = options.updateAnswerId;
    this.now = options.now;
    this.adminKey = options.adminKey;
    const ids = new ContactIdSequence();
    for (const { token, type, name } of options.channels) {
      const channel = new Channel(name, type, options.rates, ids, options.now, options.searchFold);
      this.byToken.set(token, channel);
      this.byName.set(name, channel);
    }
  }

  channels(): Channel[] {
    return [...this.byName.values()];
  }

  channelByToken(token: string): Channel | undefined {
    return this.byToken.get(token);
  }

  channelByName(name: string): Channel | undefined {
    return this.byName.get(name);
  }

  /** Every channel back to empty, and the faults and their seed back to those given at start. */
  resetAll(): void {
    for (const channel of this.byName.values()) channel.reset();
    this.faults.configure(this.options.faults, this.options.seed);
  }
}
