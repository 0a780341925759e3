// The page's controls: the toolbar's buttons (play, step, fork, faults, admin, workloads, configs), the node
// actions, speed, the lesson's next step, the log's filter and the keyboard (space plays and pauses, the arrows step
// and go back). Each is an ordinary API request through the page's act(), so it lands in the request log.

import { post, send } from './api.ts';
import type { Branches } from './branch-history.ts';
import type { Snapshot } from './model.ts';
import { byId } from './svg.ts';

/** What the controls need of the page. */
export interface ControlsHost {
  readonly snapshot: Snapshot | undefined;
  readonly branches: Branches | undefined;
  pauseAtSteps: boolean;
  /** Runs a request on behalf of a control, says what it did (or why not) and reads the new state. */
  act(what: string, fn: () => Promise<unknown>): Promise<boolean>;
  nodeAction(action: string): Promise<void>;
  lessonStep(index: number, playOn: boolean): Promise<void>;
  rewind(t: number): Promise<void>;
  markLogDirty(): void;
  keepHistory(): void;
}

export function wireControls(app: ControlsHost): void {
  const click = (id: string, fn: () => unknown) => byId(id).addEventListener('click', () => void fn());
  click('play', () => togglePlay(app));
  click('step', () => app.act('step one event', () => post('/sim/step', { events: 1 })));
  click('step-kind', () => stepToKind(app));
  click('fork', () => {
    // The fork is served from the moment shown (no rebuild): what the page shows is its past and its parent's.
    app.keepHistory();
    return app.act('fork', () => post('/sim/branches', {}));
  });
  click('heal-all', () => app.act('heal the network', () => post('/sim/faults/heal', {})));
  click('cut', () => {
    const groups = byId<HTMLInputElement>('cut-groups')
      .value.split('|')
      .map((g) =>
        g
          .split(',')
          .map((x) => x.trim())
          .filter(Boolean)
          .map((x) => (/^\d+$/.test(x) ? Number(x) : x)),
      );
    return app.act('cut the network', () => post('/sim/faults/partition', { groups }));
  });
  click('add-partitions', () => {
    const topic = byId<HTMLSelectElement>('topic').value;
    const t = app.snapshot?.metadata.topics[topic];
    const n = Number(byId<HTMLInputElement>('add-count').value) || 1;
    if (!t || !app.snapshot) return;
    return app.act(`add ${n} partition(s) to ${topic}`, () =>
      send('PATCH', `/v3/clusters/${app.snapshot!.cluster_id}/topics/${encodeURIComponent(topic)}`, {
        partitions_count: t.partitions.length + n,
      }),
    );
  });
  click('create-topic', () => {
    const name = byId<HTMLInputElement>('new-topic').value.trim();
    const partitions = Number(byId<HTMLInputElement>('new-topic-partitions').value) || 6;
    const rf = Math.min(3, app.snapshot?.brokers.length ?? 1);
    return app.act(`create topic ${name}`, () =>
      post(`/v3/clusters/${app.snapshot!.cluster_id}/topics`, {
        topic_name: name,
        partitions_count: partitions,
        replication_factor: app.snapshot?.storage === 'shared' ? 1 : rf,
      }),
    );
  });
  click('add-producer', () =>
    app.act('add a producer', () =>
      post('/sim/workloads', {
        kind: 'producer',
        topic: byId<HTMLSelectElement>('topic').value,
        rate: 100,
      }),
    ),
  );
  click('add-consumer', () => {
    const protocol = byId<HTMLSelectElement>('consumer-mode').value; // '', classic or consumer
    const group = protocol
      ? { group: `demo-${protocol === 'consumer' ? 'kip848' : 'classic'}`, group_protocol: protocol }
      : {};
    return app.act('add a consumer', () =>
      post('/sim/workloads', { kind: 'consumer', topic: byId<HTMLSelectElement>('topic').value, ...group }),
    );
  });
  click('set-config', () => {
    const topic = byId<HTMLSelectElement>('topic').value;
    const [name, value] = byId<HTMLInputElement>('config')
      .value.split('=')
      .map((x) => x.trim());
    if (!name || value === undefined || !app.snapshot) return;
    return app.act(`set ${name}=${value} on ${topic}`, () =>
      send(
        'PUT',
        `/v3/clusters/${app.snapshot!.cluster_id}/topics/${encodeURIComponent(topic)}/configs/${encodeURIComponent(name)}`,
        { value },
      ),
    );
  });
  for (const b of byId('node-actions').querySelectorAll('button'))
    b.addEventListener('click', () => void app.nodeAction((b as HTMLElement).dataset.action!));
  byId<HTMLSelectElement>('speed').addEventListener('change', (ev) => {
    const v = (ev.target as HTMLSelectElement).value;
    void app.act(`speed ${v}`, () =>
      send('PUT', '/sim/clock/speed', { speed: v === 'max' ? 'max' : Number(v) }),
    );
  });
  byId<HTMLInputElement>('pause-at-steps').addEventListener('change', (ev) => {
    app.pauseAtSteps = (ev.target as HTMLInputElement).checked;
  });
  click('lesson-next', () => {
    const l = app.snapshot?.lesson;
    if (l && l.next < l.steps.length) return app.lessonStep(l.next, false);
  });
  for (const id of ['log-filter', 'log-kind']) byId(id).addEventListener('input', () => app.markLogDirty());
  document.addEventListener('keydown', (ev) => {
    const target = ev.target as HTMLElement;
    if (target.tagName === 'INPUT' || target.tagName === 'SELECT' || target.tagName === 'TEXTAREA') return;
    const now = app.snapshot?.clock.now_ms ?? 0;
    if (ev.key === ' ') {
      ev.preventDefault();
      void togglePlay(app);
    } else if (ev.key === 'ArrowRight') {
      ev.preventDefault();
      void (ev.shiftKey
        ? stepToKind(app)
        : app.act('step one event', () => post('/sim/step', { events: 1 })));
    } else if (ev.key === 'ArrowLeft') {
      ev.preventDefault();
      void app.rewind(Math.max(0, Math.floor(now - (ev.shiftKey ? 10_000 : 1_000))));
    }
  });
}

export async function togglePlay(app: ControlsHost): Promise<void> {
  const playing = app.snapshot?.clock.paused === false;
  await app.act(playing ? 'pause' : 'play', () => post(playing ? '/sim/pause' : '/sim/resume'));
}

export async function stepToKind(app: ControlsHost): Promise<void> {
  const kind = byId<HTMLSelectElement>('step-kind-select').value;
  await app.act(`run to the next ${kind}`, () =>
    post('/sim/advance', { until: { trace_kind: kind }, timeout: '10m' }),
  );
}
