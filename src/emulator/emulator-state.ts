/** Everything the emulator holds, shared by the API routes, the admin routes and the in-process API. */
import { Channel } from './channel.js';
import type { UpdateAnswerId, ValueTypes } from './contact-answer.js';
import { ContactIdSequence } from './contact-id-sequence.js';
import { ContactStore, type SearchFold } from './contact-store.js';
import { FaultInjector } from './faults.js';
import type { ResolvedOptions } from './validate-options.js';
import { Workspace } from './v2/workspace.js';

export class EmulatorState {
  readonly faults: FaultInjector;
  readonly allowedFields: ReadonlySet<string> | undefined;
  readonly valueTypes: ValueTypes;
  readonly updateAnswerId: UpdateAnswerId;
  readonly now: () => number;
  readonly adminKey: string;
  readonly searchFold: SearchFold;
  /** The v2 surface's workspace: without workspace tokens it answers nothing (401) and holds nothing. */
  readonly workspace: Workspace;
  private readonly byToken = new Map<string, Channel>();
  private readonly byName = new Map<string, Channel>();

  constructor(private readonly options: ResolvedOptions) {
    this.faults = new FaultInjector(options.faults, options.seed);
    this.allowedFields = options.allowedFields;
    this.valueTypes = options.valueTypes;
    this.updateAnswerId = options.updateAnswerId;
    this.now = options.now;
    this.adminKey = options.adminKey;
    this.searchFold = options.searchFold;
    const ids = new ContactIdSequence();
    // With a workspace the channels are its channels, and a contact is the workspace's: one store
    // that both surfaces read and write. Without one, each channel keeps its own contacts (v1).
    const shared = options.workspaceTokens.length > 0;
    const newStore = (): ContactStore => new ContactStore(ids, options.now, options.searchFold);
    const workspaceStore = newStore();
    const channels: Channel[] = [];
    for (const { token, type, name } of options.channels) {
      const channel = new Channel(name, type, options.rates, shared ? workspaceStore : newStore(), shared);
      this.byToken.set(token, channel);
      this.byName.set(name, channel);
      channels.push(channel);
    }
    this.workspace = new Workspace(options.workspaceTokens, channels, workspaceStore, ids, options.v2Rate);
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

  /** Every channel and the workspace back to empty, and the faults and their seed back to those given at start. */
  resetAll(): void {
    for (const channel of this.byName.values()) channel.reset();
    this.workspace.reset();
    this.faults.configure(this.options.faults, this.options.seed);
  }
}
