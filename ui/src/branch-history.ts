// The page's log lines and timeline markers per branch. The server keeps only its newest trace events, so after a
// switch to another branch the page fills in what came before them from what it already saw: the branch's own
// lines as the page last showed them, or, for a branch it never showed, those of its nearest shown ancestor up to
// the moment the branch was forked (a fork's past is its parent's: the simulation is deterministic).
import type { Marker } from './timeline.ts';

export interface BranchInfo {
  id: number;
  name: string;
  parent: number | null;
  forked_at_ms: number | null;
  head_ms: number;
  requests: number;
}

export interface Branches {
  active: number;
  viewing_ms: number | null;
  branches: BranchInfo[];
}

export class BranchHistories<Line extends { t: number }> {
  private readonly kept = new Map<number, { log: Line[]; markers: Marker[] }>();

  /** What the page shows for `branch` now (copied: the page appends to its lists in place). */
  keep(branch: number, log: readonly Line[], markers: readonly Marker[]): void {
    this.kept.set(branch, { log: [...log], markers: [...markers] });
  }

  /** The served branch's lines and markers before `before`: its own as last kept, or its nearest kept ancestor's. */
  inherited(b: Branches, before: number): { log: Line[]; markers: Marker[] } {
    let limit = before;
    for (let id: number | null = b.active; id !== null; ) {
      const kept = this.kept.get(id);
      if (kept)
        return {
          log: kept.log.filter((l) => l.t < limit),
          markers: kept.markers.filter((m) => m.t < limit),
        };
      const branch = b.branches.find((x) => x.id === id);
      if (!branch || branch.forked_at_ms === null) break;
      limit = Math.min(limit, branch.forked_at_ms);
      id = branch.parent;
    }
    return { log: [], markers: [] };
  }
}
