// `kafkasim serve scenario.yaml --play`: the server plays the scenario's timeline by itself, so that a teacher starts
// a lesson with one command and the class watches it (in the web UI, with Kafka's tools, or in the terminal). It is
// the lesson of `kafkasim ui` with the server in the viewer's place: pacing stops where the next step is due (its
// time has come or its condition holds), the player runs the step as the page would (POST /sim/lesson/step through
// SimHost.mutate, so the request log replays it), and pacing goes on. A pause from the API or the page holds the
// player too: it steps only when pacing stopped at the breakpoint, and resumes only if nobody paused meanwhile.
import type { SimHost } from './host.ts';
import type { Pacer } from './pacer.ts';

export interface PlayerReport {
  /** A step is about to run: `index` of `of`, its action and its note. */
  step(at: number, index: number, of: number, action: string, note: string | undefined): void;
  /** A line a step printed (tool output). */
  line(text: string): void;
  /** A step failed (it is passed, as in a lesson), or could not run at all (the player stops). */
  problem(text: string): void;
  /** Every step ran. */
  done(at: number): void;
}

/** Starts playing the served lesson; returns the function that stops the player. */
export function playLesson(host: SimHost, pacer: Pacer, report: PlayerReport): () => void {
  let stopped = false;
  let running = false;
  let wired: unknown;
  const wire = () => {
    const lesson = host.world.lesson;
    if (lesson && lesson !== wired) {
      lesson.onPrint = (line) => report.line(line);
      wired = lesson;
    }
    return lesson;
  };
  wire();
  const stepNow = async () => {
    if (stopped || running || !pacer.atBreakpoint) return;
    const lesson = wire();
    const next = lesson?.nextStep();
    if (!lesson || !next) return;
    running = true;
    try {
      const t0 = lesson.t0;
      report.step(host.sim.now - t0, next.index, next.of, next.action, next.note);
      const result = await host.mutate(
        { method: 'POST', url: '/sim/lesson/step', body: { index: next.index } },
        () => lesson.apply(next.index),
      );
      if (result.error !== undefined) report.problem(`step ${next.index + 1} failed: ${result.error}`);
      if (lesson.nextStep() === undefined) report.done(host.sim.now - t0);
    } catch (e) {
      report.problem(`step ${next.index + 1} could not run: ${(e as Error).message}; the player stops`);
      stopped = true;
      return;
    } finally {
      running = false;
    }
    // Still stopped where this step was due (nobody paused or stepped meanwhile): play on.
    if (pacer.paused && pacer.atBreakpoint) pacer.resume();
  };
  pacer.onBreakpoint = () => {
    setImmediate(() => void stepNow());
  };
  return () => {
    stopped = true;
    pacer.onBreakpoint = undefined;
  };
}
