// kafkasim's teaching UI: a live view of the served simulation (GET /sim/snapshot a few times a second, the live
// trace as Server-Sent Events), controls (play, pause, step, speed, a scrubbable timeline, branches), and faults
// and admin by clicking. Every action is an ordinary API request, so it lands in the request log and replays.
import { ApiFailure, get, getIfChanged, openStream, post } from './api.ts';
import { type Branches, BranchHistories, type BranchInfo } from './branch-history.ts';
import { ClusterView } from './cluster-view.ts';
import { renderCompare } from './compare-view.ts';
import { wireControls } from './controls.ts';
import { hintFor } from './lessons.ts';
import type { LessonState, Snapshot, TraceEvent } from './model.ts';
import { PartitionsView } from './partitions-view.ts';
import { BalancerState, drawBalancer, drawGroups, drawLake, drawWorkloads, Panel } from './side-views.ts';
import { byId, html } from './svg.ts';
import { type Marker, Timeline } from './timeline.ts';
import { type Category, describeAny, STREAM_KINDS } from './words.ts';

/**
 * The snapshot is read every POLL_MS (4 frames of state a second: as much as a viewer can follow), every
 * MAX_SPEED_POLL_MS while it plays at max (each read shows minutes of virtual time gone by: twice a second says
 * as much, and the page's reads and draws take CPU from the simulation on the same cores), or less often when
 * reading and drawing one takes long (at most a fifth of the page's time goes to it), and every HIDDEN_POLL_MS
 * while the tab is hidden. Each read starts when the one before was drawn; an action reads at once.
 */
const POLL_MS = 250;
const MAX_SPEED_POLL_MS = 500;
const HIDDEN_POLL_MS = 2000;
const BRANCHES_POLL_MS = 2000;
/**
 * A read not answered in this long is given up (and shown), and the next one is scheduled: each read starts when
 * the one before ended, so one that never ended would stop the page's updates for good.
 */
const READ_TIMEOUT_MS = 10_000;
const MAX_LOG_LINES = 1500;
/** The event log is redrawn at most this often (wall ms): lines arrive in bursts, one redraw takes them all. */
const LOG_REDRAW_MS = 200;
/**
 * Wall ms between two moves of the traffic dots when the simulation runs fast (100x and more, or max): 30 frames
 * a second, where the state changes faster than anyone can follow and every frame the page draws is CPU the
 * simulation does not get on the same cores. At slower speeds the dots move every animation frame.
 */
const FAST_FRAME_MS = 1000 / 30;
/** Lines the event log shows (the newest that pass its filter). */
const SHOWN_LOG_LINES = 300;

interface LogLine {
  t: number;
  text: string;
  category: Category;
  known: boolean;
}

class App {
  snapshot: Snapshot | undefined;
  branches: Branches | undefined;
  readonly cluster = new ClusterView(byId('cluster'));
  readonly partitions = new PartitionsView(byId('partitions'));
  readonly timeline = new Timeline(byId('timeline'));
  readonly balancer = new BalancerState();
  readonly panels = {
    groups: new Panel(byId('groups')),
    balancer: new Panel(byId('balancer')),
    lake: new Panel(byId('lake')),
    workloads: new Panel(byId('workloads')),
  };
  log: LogLine[] = [];
  private logDirty = true;
  /** The lines the log's list shows, oldest first (one <li> each), and the filter they were chosen with. */
  private logShown: LogLine[] = [];
  private logShownFilter = '';
  private logDrawnAt = Number.NEGATIVE_INFINITY;
  /** Something the snapshot does not carry changed (the balancer's trace): draw even an unchanged snapshot. */
  private viewDirty = false;
  /** The served snapshot's ETag: the next read asks for it only if it changed (304 otherwise). */
  private snapshotEtag: string | undefined;
  private pollTimer: ReturnType<typeof setTimeout> | undefined;
  /** Wall ms the last read and draw took. */
  private pollCost = 0;
  private frameRequested = false;
  /** When the traffic dots last moved (the frame's time). */
  private animatedAt = Number.NEGATIVE_INFINITY;
  /** Snapshot reads answered (drawn or found unchanged) since the page opened. */
  polls = 0;
  private polling = false;
  private pollAgain = false;
  /** Changes seen so far (this page's actions answered, the world replaced): a read begun before the latest is
   * stale. */
  private changes = 0;
  private branchesDirty = true;
  private branchesAt = 0;
  private stream = new AbortController();
  /** Wall time (ms) of the newest animation frames' work, and of the newest snapshot renders:
   * scripts/bench-ui-page.ts reads them (each list keeps its newest 600). */
  readonly frameTimes: number[] = [];
  readonly renderTimes: number[] = [];
  /** Animation frames run since the page opened. */
  frames = 0;
  private lessonShown = -1;
  pauseAtSteps = true;
  private lessonPosting = false;

  start(): void {
    this.cluster.onSelect = (node) => this.select(node);
    this.cluster.onDropPartition = (broker, key) => void this.reassign(broker, key);
    this.timeline.onScrub = (t) => void this.rewind(t);
    wireControls(this);
    byId('log').addEventListener('click', (ev) => {
      const li = (ev.target as Element).closest<HTMLLIElement>('li[data-t]');
      if (li) void this.rewind(Math.round(Number(li.dataset.t)));
    });
    document.addEventListener('visibilitychange', () => {
      if (!document.hidden) void this.poll();
    });
    this.openTrace();
    void this.poll();
  }

  /**
   * Animation frames run only while something moves (the traffic dots after a snapshot) or waits to be drawn
   * (the log): an idle page, or one between two snapshots' traffic, asks the browser for no frame at all.
   */
  private wake(): void {
    if (this.frameRequested) return;
    this.frameRequested = true;
    requestAnimationFrame((now) => this.frame(now));
  }

  private frame(now: number): void {
    this.frameRequested = false;
    const t0 = performance.now();
    const speed = this.snapshot?.clock.speed;
    const fast = speed === 'max' || (typeof speed === 'number' && speed >= 100);
    // A frame within FAST_FRAME_MS of the last move skips it (and asks for the next one).
    let again = true;
    if (!fast || now - this.animatedAt >= FAST_FRAME_MS - 2) {
      this.animatedAt = now;
      again = this.cluster.animate(now);
    }
    if (this.logDirty) {
      if (now - this.logDrawnAt >= LOG_REDRAW_MS) {
        this.logDrawnAt = now;
        this.drawLog();
      } else again = true;
    }
    this.frames++;
    this.frameTimes.push(performance.now() - t0);
    if (this.frameTimes.length > 600) this.frameTimes.shift();
    if (again) this.wake();
  }

  /** The next read, POLL_MS after this one was drawn (longer when reading and drawing were slow). */
  private schedulePoll(): void {
    clearTimeout(this.pollTimer);
    const clock = this.snapshot?.clock;
    const racing = clock?.paused === false && clock.speed === 'max';
    const wait = document.hidden
      ? HIDDEN_POLL_MS
      : Math.max(racing ? MAX_SPEED_POLL_MS : POLL_MS, 4 * this.pollCost);
    this.pollTimer = setTimeout(() => void this.poll(), wait);
  }

  markLogDirty(): void {
    this.logDirty = true;
    this.wake();
  }

  /** What the page shows, read from its DOM (the browser tests compare it with the API's snapshots). */
  viewState() {
    const clock = byId('clock');
    const brokers: Record<string, string> = {};
    for (const g of document.querySelectorAll<SVGGElement>('.node.broker'))
      brokers[g.dataset.node!] = g.querySelectorAll('text')[1]?.textContent ?? '';
    const controllers: Record<string, string> = {};
    for (const g of document.querySelectorAll<SVGGElement>('.node.controller'))
      controllers[g.dataset.node!] = g.querySelectorAll('text')[1]?.textContent ?? '';
    return {
      now_ms: Number(clock.dataset.nowMs),
      controllers,
      hash: clock.dataset.hash,
      events: Number(clock.dataset.events),
      leaders: this.partitions.leaders(),
      brokers,
    };
  }

  /** Runs an action; a refusal is shown in the status line (never thrown at the page). */
  async act(what: string, fn: () => Promise<unknown>): Promise<boolean> {
    try {
      await fn();
      this.changes++;
      this.branchesDirty = true;
      this.status(`${what}: done`);
      void this.poll();
      return true;
    } catch (e) {
      this.status(`${what}: ${e instanceof ApiFailure ? e.message : String(e)}`, true);
      return false;
    }
  }

  status(text: string, error = false): void {
    const el = byId('status');
    el.textContent = text;
    el.classList.toggle('error', error);
  }

  // ---- data --------------------------------------------------------------------------------------------------

  /**
   * Reads the snapshot (and the branches when they may have changed) and redraws. One read at a time; one asked
   * for while another is under way runs after it. A read begun before an action was answered (or the world replaced) is dropped unseen:
   * it may mix the world before the action (one answer) with the world after it (the other), e.g. a rewound
   * clock beside branches that do not yet say "viewing the past".
   */
  async poll(): Promise<void> {
    if (this.polling) {
      this.pollAgain = true;
      return;
    }
    this.polling = true;
    const changes = this.changes;
    const t0 = performance.now();
    try {
      // The branches change only by a fork, a switch, a rewind or a change (all of them this page's actions or a
      // world event) or as the served one runs on: read them every 2 s, or at once after any of those.
      const wantBranches = this.branchesDirty || performance.now() - this.branchesAt > BRANCHES_POLL_MS;
      if (wantBranches) {
        this.branchesDirty = false;
        this.branchesAt = performance.now();
      }
      // The snapshot only when it changed since the one the page has (the server answers 304 otherwise).
      const etag = this.snapshot ? this.snapshotEtag : undefined;
      const signal = AbortSignal.timeout(READ_TIMEOUT_MS);
      const [read, b] = await Promise.all([
        getIfChanged<Snapshot>('/sim/snapshot', etag, signal),
        wantBranches ? get<Branches>('/sim/branches', signal) : Promise.resolve(this.branches),
      ]);
      if (changes !== this.changes) {
        this.pollAgain = true;
        return;
      }
      this.polls++;
      const changed = read !== undefined || wantBranches || this.viewDirty;
      if (read) {
        this.snapshot = read.body;
        this.snapshotEtag = read.etag;
      }
      this.branches = b;
      if (changed) {
        this.viewDirty = false;
        this.render();
      }
    } catch (e) {
      this.branchesDirty = true;
      this.status(`cannot read the simulation: ${e instanceof Error ? e.message : String(e)}`, true);
    } finally {
      this.polling = false;
      this.pollCost = performance.now() - t0;
      if (this.pollAgain) {
        this.pollAgain = false;
        void this.poll();
      } else this.schedulePoll();
    }
  }

  openTrace(): void {
    this.stream.abort();
    this.stream = new AbortController();
    openStream(
      `/sim/trace/stream?kind=${encodeURIComponent(STREAM_KINDS)}`,
      {
        event: (name, data) => {
          if (name === 'trace') this.onTrace(JSON.parse(data) as TraceEvent);
          else if (name === 'world') {
            this.changes++;
            this.branchesDirty = true;
            void this.poll();
            void this.reloadHistory();
          }
        },
      },
      this.stream.signal,
    );
    void this.reloadHistory();
  }

  /** After the world changed (a rewind, a fork, a scenario load): the log and markers from the trace kept. */
  async reloadHistory(): Promise<void> {
    // The server keeps only its newest trace events. What the page had before them is still true where the past
    // replays exactly: after a rewind of the same branch, the lines and markers before the moment gone to; after
    // a switch to another branch, that branch's own (kept from when the page last showed it) or, for a branch
    // the page never showed, its parent's up to the moment it was forked (a fork's past is its parent's). So
    // the timeline keeps the whole run's markers. Anything else (a scenario load) starts afresh.
    const rewound = this.rewound;
    this.rewound = undefined;
    const switched = this.switchedFrom;
    this.switchedFrom = undefined;
    const [text, branches] = await Promise.all([
      fetchText(`/sim/trace.jsonl?kind=${encodeURIComponent(STREAM_KINDS)}`),
      switched !== undefined ? get<Branches>('/sim/branches').catch(() => undefined) : undefined,
    ]);
    const events = text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as TraceEvent);
    const first = events[0]?.t ?? Number.POSITIVE_INFINITY;
    if (switched !== undefined && branches) {
      const kept = this.histories.inherited(branches, first);
      this.log = kept.log;
      this.timeline.markers = kept.markers;
    } else {
      // From the lists as they were when the rewind was asked for: a live trace event of the rebuilt world that
      // arrives before this reload cuts the live lists at its moment (onTrace), which may be earlier than the trace
      // the server kept, and the markers between the two would be lost.
      const keepBefore = rewound === undefined ? 0 : Math.min(rewound.to, first);
      const from = rewound ?? { log: this.log, markers: this.timeline.markers };
      this.log = from.log.filter((l) => l.t < keepBefore);
      this.timeline.markers = from.markers.filter((m) => m.t < keepBefore);
    }
    this.balancer.reset();
    for (const e of events) this.onTrace(e, true);
    this.viewDirty = true;
    this.markLogDirty();
  }

  /** The lines and markers of each branch the page showed, as when it left it (for a switch back, or a fork's). */
  private readonly histories = new BranchHistories<LogLine>();
  /** The branch this page switched away from, until the history is reloaded after the switch. */
  private switchedFrom: number | undefined;

  /**
   * The moment a rewind of the served branch went to and the log and markers when it was asked for (copies: live
   * events change the lists in place), until the history is reloaded after it.
   */
  private rewound: { to: number; log: LogLine[]; markers: Marker[] } | undefined;

  onTrace(e: TraceEvent, history = false): void {
    const last = this.log[this.log.length - 1];
    if (!history && last && e.t < last.t) {
      // An older moment: the branch was rewound; what follows is recorded again.
      this.log = this.log.filter((l) => l.t <= e.t);
      this.timeline.cut(e.t);
    }
    if (e.kind === 'balancer.candidates') return;
    const d = describeAny(e);
    const known = d.category !== 'other' || !d.text.startsWith(e.kind);
    this.balancer.onEvent(e, known ? d.text : undefined);
    this.log.push({ t: e.t, text: d.text, category: d.category, known });
    if (this.log.length > MAX_LOG_LINES) this.log.splice(0, this.log.length - MAX_LOG_LINES);
    if (d.marker) this.timeline.add({ t: e.t, category: d.category, text: d.text });
    if (e.kind.startsWith('balancer.')) this.viewDirty = true;
    this.markLogDirty();
  }

  // ---- drawing -----------------------------------------------------------------------------------------------

  render(): void {
    const s = this.snapshot;
    if (!s) return;
    const t0 = performance.now();
    const clock = byId('clock');
    setText(clock, `${s.clock.now} · ${s.events} events · trace ${s.trace.hash}`);
    clock.dataset.nowMs = String(s.clock.now_ms);
    clock.dataset.hash = s.trace.hash;
    clock.dataset.events = String(s.events);
    setText(byId('scenario'), s.scenario ?? 'sandbox');
    const playing = s.clock.paused === false;
    setText(byId('play'), playing ? 'Pause (space)' : 'Play (space)');
    byId('play').dataset.playing = String(playing);
    const speed = byId<HTMLSelectElement>('speed');
    if (
      document.activeElement !== speed &&
      s.clock.speed !== undefined &&
      speed.value !== String(s.clock.speed)
    )
      speed.value = String(s.clock.speed);
    setText(byId('halted'), s.halted ? `HALTED: ${s.halted}` : '');
    this.cluster.update(s, performance.now());
    this.wake();
    this.partitions.update(s);
    drawGroups(this.panels.groups, s);
    drawBalancer(this.panels.balancer, this.balancer);
    drawLake(this.panels.lake, s);
    drawWorkloads(
      this.panels.workloads,
      s,
      (w, action) =>
        void this.act(`${action} ${w.name}`, () =>
          post(`/sim/workloads/${encodeURIComponent(w.name)}/${action}`),
        ),
    );
    this.drawTopicsSelect(s);
    this.drawBranches();
    this.drawLesson(s.lesson ?? null);
    const branch = this.branches?.branches.find((b) => b.id === this.branches?.active);
    this.timeline.set(s.clock.now_ms, Math.max(branch?.head_ms ?? 0, s.clock.now_ms));
    setText(
      byId('viewing'),
      this.branches?.viewing_ms != null
        ? `Viewing the past at ${(this.branches.viewing_ms / 1000).toFixed(1)} s: play or change anything to branch off here.`
        : '',
    );
    this.renderTimes.push(performance.now() - t0);
    if (this.renderTimes.length > 600) this.renderTimes.shift();
  }

  /**
   * The newest SHOWN_LOG_LINES lines that pass the filter. Lines only arrive at the end and leave at the start
   * (the log is capped), so the list is usually the one shown with its oldest lines removed and the new ones
   * appended: only those are touched. Anything else (a rewind cut the log, another filter) redraws it whole.
   */
  private drawLog(): void {
    this.logDirty = false;
    const filter = byId<HTMLInputElement>('log-filter').value.toLowerCase();
    const kind = byId<HTMLSelectElement>('log-kind').value;
    const list = byId('log');
    const lines = this.log.filter(
      (l) =>
        (kind === 'all' || (kind === 'known' ? l.known : l.category === kind)) &&
        (filter === '' || l.text.toLowerCase().includes(filter)),
    );
    const shown = lines.slice(-SHOWN_LOG_LINES);
    const old = this.logShown;
    const filterKey = `${kind}\u0000${filter}`;
    // The old list from the new one's first line on must be the new one's start (by identity): keep those <li>.
    let from = filterKey === this.logShownFilter && shown.length > 0 ? old.indexOf(shown[0]!) : -1;
    const kept = from >= 0 ? old.length - from : 0;
    if (kept > shown.length) from = -1;
    for (let i = 0; from >= 0 && i < kept; i++) if (old[from + i] !== shown[i]) from = -1;
    this.logShown = shown;
    this.logShownFilter = filterKey;
    if (from < 0) list.replaceChildren();
    else if (kept === shown.length && from === 0) return;
    else for (let i = 0; i < from; i++) list.firstElementChild?.remove();
    const added = document.createDocumentFragment();
    for (let i = from < 0 ? 0 : kept; i < shown.length; i++) {
      const l = shown[i]!;
      const li = document.createElement('li');
      li.className = `cat-${l.category}`;
      li.dataset.t = String(l.t);
      li.textContent = `${(l.t / 1000).toFixed(3).padStart(9)} s  ${l.text}`;
      li.title = 'go to this moment';
      added.appendChild(li);
    }
    list.appendChild(added);
    list.scrollTop = list.scrollHeight;
  }

  private drawTopicsSelect(s: Snapshot): void {
    const select = byId<HTMLSelectElement>('topic');
    const names = Object.keys(s.metadata.topics).sort();
    if ([...select.options].map((o) => o.value).join() === names.join()) return;
    const current = select.value;
    select.replaceChildren(...names.map((n) => new Option(n, n)));
    if (names.includes(current)) select.value = current;
  }

  private drawBranches(): void {
    const b = this.branches;
    if (!b) return;
    const key = JSON.stringify(b);
    const el = byId('branches');
    if (el.dataset.key === key) return;
    el.dataset.key = key;
    el.replaceChildren();
    const depth = (x: BranchInfo): number => {
      const p = b.branches.find((y) => y.id === x.parent);
      return p ? depth(p) + 1 : 0;
    };
    for (const x of b.branches) {
      const row = html(
        'div',
        { class: `branch${x.id === b.active ? ' active' : ''}`, 'data-branch': String(x.id) },
        undefined,
        el,
      );
      row.style.paddingLeft = `${depth(x) * 16}px`;
      html(
        'span',
        {},
        `${x.name}${x.forked_at_ms != null ? ` (from ${(x.forked_at_ms / 1000).toFixed(1)} s)` : ''} · ${(x.head_ms / 1000).toFixed(1)} s · ${x.requests} requests${x.id === b.active ? ' · current' : ''}`,
        row,
      );
      if (x.id !== b.active) {
        const go = html('button', { 'data-action': 'checkout' }, 'switch', row);
        go.addEventListener('click', () => void this.switchTo(x, b.active));
        const cmp = html('button', { 'data-action': 'compare' }, 'compare', row);
        cmp.addEventListener('click', () => void this.compare(b.active, x.id));
      }
    }
  }

  private drawLesson(lesson: LessonState | null): void {
    const el = byId('lesson');
    el.hidden = lesson === null;
    if (!lesson) return;
    const step = lesson.steps[lesson.next];
    const last = lesson.steps[lesson.next - 1];
    byId('lesson-title').textContent = `Lesson: ${lesson.scenario}`;
    el.dataset.next = String(lesson.next);
    byId('lesson-progress').textContent = step
      ? `Step ${lesson.next + 1} of ${lesson.steps.length}${step.wait ? ` waits for ${step.wait}${lesson.holds ? ' (reached)' : ''}` : step.due_ms !== null ? ` at ${(step.due_ms / 1000).toFixed(1)} s` : ''}`
      : `All ${lesson.steps.length} steps done: the sandbox is yours.`;
    if (this.lessonShown !== lesson.next) {
      this.lessonShown = lesson.next;
      byId('lesson-done').textContent = last
        ? `Just ran step ${lesson.next}: ${last.note ?? last.action}${last.status === 'failed' ? ' (it failed: see the output)' : ''}`
        : lesson.description;
      byId('lesson-note').textContent = step
        ? `Next: ${step.note ?? (step.wait ? `wait until ${step.wait}` : step.action)}`
        : 'The lesson is over: break things, rewind, fork.';
      byId('lesson-hint').textContent = hintFor(lesson);
    }
    byId('lesson-output').textContent = lesson.output.slice(-30).join('\n');
    // Pacing stopped by itself where the next step is due (the server's breakpoint): run the step there, then
    // play on unless the teacher wants a pause at each step.
    if (step && !this.lessonPosting && this.snapshot?.clock.at_breakpoint === true)
      void this.lessonStep(lesson.next, !this.pauseAtSteps);
  }

  async lessonStep(index: number, playOn: boolean): Promise<void> {
    this.lessonPosting = true;
    try {
      const ok = await this.act(`lesson step ${index + 1}`, () => post('/sim/lesson/step', { index }));
      if (ok && playOn) {
        await post('/sim/resume');
        this.changes++;
      }
    } finally {
      this.lessonPosting = false;
      void this.poll();
    }
  }

  // ---- actions -----------------------------------------------------------------------------------------------

  private select(node: string): void {
    this.cluster.selected = node;
    byId('selected').textContent = node;
    byId('node-actions').dataset.node = node;
    // Slowing is a broker's (its network latency); the rest apply to any node (clients: isolate only).
    const kind = node.startsWith('broker-')
      ? 'broker'
      : node.startsWith('controller-')
        ? 'controller'
        : 'client';
    for (const b of byId('node-actions').querySelectorAll<HTMLButtonElement>('button')) {
      const action = b.dataset.action!;
      b.disabled =
        (kind !== 'broker' && (action === 'slow' || action === 'unslow')) ||
        (kind === 'client' && (action === 'crash' || action === 'restart'));
    }
    if (this.snapshot) this.cluster.update(this.snapshot, performance.now());
  }

  async nodeAction(action: string): Promise<void> {
    const node = byId('node-actions').dataset.node;
    if (!node) return;
    const broker = node.startsWith('broker-') ? Number(node.slice(7)) : undefined;
    const controller = node.startsWith('controller-') ? Number(node.slice(11)) : undefined;
    const ref = broker ?? node;
    const slow = Number(byId<HTMLInputElement>('slow-ms').value) || 200;
    const calls: Record<string, () => Promise<unknown>> = {
      crash: () =>
        broker !== undefined
          ? post('/sim/faults/crash-broker', { broker_id: broker })
          : post('/sim/faults/crash-controller', { controller_id: controller }),
      restart: () =>
        broker !== undefined
          ? post('/sim/faults/restart-broker', { broker_id: broker })
          : post('/sim/faults/restart-controller', { controller_id: controller }),
      isolate: () => post('/sim/faults/isolate', { node: ref }),
      slow: () => post('/sim/faults/slow-broker', { broker_id: broker, delay: `${slow}ms` }),
      unslow: () => post('/sim/faults/slow-broker', { broker_id: broker, delay: '0ms' }),
      heal: () => post('/sim/faults/heal', {}),
    };
    const call = calls[action];
    if (call) await this.act(`${action} ${node}`, call);
  }

  async reassign(broker: number, key: string): Promise<void> {
    const [topic, p] = key.split('\u0000') as [string, string];
    const reg = this.snapshot?.metadata.topics[topic]?.partitions[Number(p)];
    if (!reg || !this.snapshot) return;
    const rest = reg.replicas.filter((r) => r !== broker);
    const replicas = [broker, ...rest].slice(0, reg.replicas.length);
    await this.act(`move ${topic}-${p} to broker ${broker}`, () =>
      post(`/v3/clusters/${this.snapshot!.cluster_id}/topics/-/partitions/-/reassignment`, {
        version: 1,
        partitions: [{ topic, partition: Number(p), replicas }],
      }),
    );
  }

  async switchTo(x: BranchInfo, from: number): Promise<void> {
    // What this branch showed, kept before the switch (copies: the page appends to its lists in place).
    this.histories.keep(from, this.log, this.timeline.markers);
    this.switchedFrom = from;
    if (!(await this.act(`switch to ${x.name}`, () => post(`/sim/branches/${x.id}/checkout`))))
      this.switchedFrom = undefined;
  }

  async rewind(t: number): Promise<void> {
    this.rewound = { to: t, log: [...this.log], markers: [...this.timeline.markers] };
    if (!(await this.act(`go to ${(t / 1000).toFixed(1)} s`, () => post('/sim/rewind', { to_ms: t }))))
      this.rewound = undefined;
  }

  async compare(a: number, b: number): Promise<void> {
    const at = this.snapshot?.clock.now_ms ?? 0;
    const name = (id: number) => this.branches?.branches.find((z) => z.id === id)?.name ?? String(id);
    try {
      const [x, y] = await Promise.all([
        get<Snapshot>(`/sim/branches/${a}/snapshot?at_ms=${Math.floor(at)}`),
        get<Snapshot>(`/sim/branches/${b}/snapshot?at_ms=${Math.floor(at)}`),
      ]);
      const el = byId('compare');
      renderCompare(el, { name: name(a), snapshot: x }, { name: name(b), snapshot: y }, () => {
        el.hidden = true;
        el.replaceChildren();
      });
      el.scrollIntoView({ block: 'start' });
    } catch (e) {
      this.status(`compare: ${e instanceof Error ? e.message : String(e)}`, true);
    }
  }

  /** What the page shows of this branch, kept for when it is served again (a fork starts from it). */
  keepHistory(): void {
    if (this.branches) this.histories.keep(this.branches.active, this.log, this.timeline.markers);
  }
}

/** Sets an element's text only when it differs (an unchanged text is not a DOM change for the browser to redo). */
function setText(el: HTMLElement, text: string): void {
  if (el.textContent !== text) el.textContent = text;
}

async function fetchText(path: string): Promise<string> {
  const token = sessionStorage.getItem('kafkasim-token');
  const r = await fetch(path, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return r.ok ? r.text() : '';
}

const app = new App();
(window as unknown as { kafkasim: App }).kafkasim = app;
app.start();
