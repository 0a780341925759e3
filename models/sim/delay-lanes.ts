// Timers of a few fixed lengths (a fetch's max wait, a produce's request timeout): each length gets a lane
// (event-queue.ts), so that the thousands of such timers pending at once in a large cluster take one heap slot per
// length instead of one each, cost no closure and no event object, and a withdrawn one leaves nothing in the
// heap. Entries run in the same (time, scheduling order) as timers would, so a run is the same event for event.
// Past `maxLanes` distinct lengths, an entry gets an ordinary timer instead.
import type { Lane, LaneEntry, Timer } from './event-queue.ts';
import type { Simulation } from './simulation.ts';

/** What a DelayLanes entry carries: where it is queued, so that it can be withdrawn. */
export interface DelayedEntry extends LaneEntry {
  lane: Lane<DelayedEntry> | undefined;
  timer: Timer | undefined;
}

export class DelayLanes<E extends DelayedEntry> {
  private readonly lanes = new Map<number, Lane<E>>();

  constructor(
    private readonly sim: Simulation,
    /** Runs an entry whose time has come (as one event labelled `label`, belonging to the entry's node). */
    private readonly run: (entry: E) => void,
    private readonly label: string,
    private readonly maxLanes = 16,
  ) {}

  /** Runs `entry` after `delayMs`, unless withdrawn first. */
  add(delayMs: number, entry: E): void {
    if (!(delayMs >= 0)) throw new RangeError(`schedule: delay must be >= 0, got ${delayMs} (${this.label})`);
    let lane = this.lanes.get(delayMs);
    if (lane === undefined && this.lanes.size < this.maxLanes) {
      lane = this.sim.lane(this.run, this.label);
      this.lanes.set(delayMs, lane);
    }
    if (lane === undefined) {
      entry.lane = undefined;
      entry.timer = this.sim.scheduleCall(delayMs, this.run, entry, this.label, entry.node);
      return;
    }
    entry.timer = undefined;
    entry.lane = lane as unknown as Lane<DelayedEntry>;
    lane.add(this.sim.now + delayMs, entry);
  }

  /** Withdraws `entry` if it is still queued (harmless after it ran or was withdrawn). */
  withdraw(entry: E): void {
    if (entry.lane !== undefined) entry.lane.withdraw(entry);
    else entry.timer?.cancel();
  }
}
