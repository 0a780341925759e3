// What the start and stop steps share: naming the clients declared under `clients`.

import type { StepChecks } from '../reference-checks.ts';
import { ref } from '../schema-kit.ts';
import type { ScenarioSpec } from '../types.ts';
import { BOOTSTRAP, type StepExecute, StepFailure } from './step.ts';

export type Names = string | string[];

export const names = {
  anyOf: [ref('clientName'), { type: 'array', items: ref('clientName'), minItems: 1 }],
  title: 'a client name or a list of client names',
};

export function checkNames(v: Names, at: StepChecks, start: boolean): void {
  (Array.isArray(v) ? v : [v]).forEach((n, j) => {
    at.checkClient(
      Array.isArray(v) ? [...at.path, j] : at.path,
      n,
      ['producer', 'consumer', 'perfProducer', 'ingest'],
      'client',
    );
    if (start) at.started(n);
  });
}

export function startOrStop(v: Names, { clients }: StepExecute, start: boolean): undefined {
  for (const name of [v].flat()) {
    try {
      if (start) clients.start(name);
      else clients.stop(name);
    } catch (e) {
      throw new StepFailure(`${start ? 'start' : 'stop'} ${name}: ${(e as Error).message}`);
    }
  }
  return undefined;
}

/** kafka-producer-perf-test's command line for a perf producer, else `# start <names>`. */
export function startCommand(v: Names, spec: ScenarioSpec): string {
  const list = [v].flat();
  const perf = spec.clients?.perfProducers?.find((p) => p.name === list[0]);
  if (list.length === 1 && perf) {
    const props = Object.entries(perf.config ?? {})
      .map(([k, val]) => ` ${k}=${val}`)
      .join('');
    return `$ kafka-producer-perf-test.sh --topic ${perf.topic} --num-records ${perf.numRecords} --throughput ${perf.throughput} --record-size ${perf.recordSize} --producer-props bootstrap.servers=${BOOTSTRAP}${props}`;
  }
  return `# start ${list.join(', ')}`;
}
