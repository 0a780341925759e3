// How steps name what they act on: brokers (an id, the leader of a partition now, or an earlier step's broker),
// controllers (an id, the active one now, or an earlier step's, possibly after a delay) and network nodes.
import { brokerNodeId } from '../../../models/protocol/index.ts';
import { formatDuration, type NodeId, parseDuration } from '../../../models/sim/index.ts';
import { type Cluster, CONTROLLER_NODE } from '../../cluster/index.ts';
import type { StepChecks } from '../reference-checks.ts';
import type { DocPath } from '../source.ts';
import type { StepRecord } from '../step-record.ts';
import type { BrokerSelector, ControllerAction, ControllerSelector, NodeRef } from '../types.ts';
import { StepFailure } from './step.ts';

/** How the language reference writes a broker selector. */
export const BROKER_SELECTOR_SYNTAX =
  'a broker id, `{leaderOf: {topic, partition}}` or `{brokerOf: <label>}`';

interface Resolving {
  readonly cluster: Cluster;
  readonly steps: ReadonlyMap<string, StepRecord>;
}

export function resolveBroker(sel: BrokerSelector, ctx: Resolving): number {
  if (typeof sel === 'number') return sel;
  if ('leaderOf' in sel) {
    const { topic, partition } = sel.leaderOf;
    const reg = ctx.cluster.image.topics[topic]?.partitions[partition];
    if (!reg) throw new StepFailure(`${topic}-${partition} does not exist`);
    if (reg.leader < 0) throw new StepFailure(`${topic}-${partition} has no leader right now`);
    return reg.leader;
  }
  const b = ctx.steps.get(sel.brokerOf)?.broker;
  if (b === undefined) throw new StepFailure(`step '${sel.brokerOf}' has not acted on a broker`);
  return b;
}

/** A controller selector as a node id (3000, ...): by id, the active controller now, or an earlier step's. */
export function resolveController(sel: ControllerSelector, ctx: Resolving): number {
  if (typeof sel === 'number') return sel;
  if (sel === 'active') {
    const active = ctx.cluster.quorumStatus().activeController;
    if (active === undefined)
      throw new StepFailure('no controller is active right now (the quorum has no leader)');
    return active;
  }
  const c = ctx.steps.get(sel.controllerOf)?.controller;
  if (c === undefined) throw new StepFailure(`step '${sel.controllerOf}' has not acted on a controller`);
  return c;
}

/** A controller step's selector, and its delay if it acts later. */
export function controllerAction(action: ControllerAction): { sel: ControllerSelector; delay: number } {
  if (typeof action === 'object' && 'controller' in action)
    return { sel: action.controller, delay: parseDuration(action.delay) };
  return { sel: action, delay: 0 };
}

export function brokerSelectorText(sel: BrokerSelector, resolved: number | undefined): string {
  if (typeof sel === 'number') return String(sel);
  const id = resolved !== undefined ? `${resolved} ` : '';
  if ('leaderOf' in sel) return `${id}(the leader of ${sel.leaderOf.topic}-${sel.leaderOf.partition})`;
  return `${id}(the broker of step '${sel.brokerOf}')`;
}

export function controllerActionText(action: ControllerAction, resolved: number | undefined): string {
  const { sel, delay } = controllerAction(action);
  if (delay > 0)
    return `${controllerSelectorText(sel, undefined)} in ${formatDuration(delay)} (the next steps run meanwhile)`;
  return controllerSelectorText(sel, resolved);
}

function controllerSelectorText(sel: ControllerSelector, resolved: number | undefined): string {
  if (typeof sel === 'number') return String(sel);
  const id = resolved !== undefined ? `${resolved} ` : '';
  if (sel === 'active') return `${id}(the active controller)`;
  return `${id}(the controller of step '${sel.controllerOf}')`;
}

/** `or`-joined names: `a, b or c`. */
const orList = (names: readonly string[]): string =>
  names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;

export function checkBrokerSelector(path: DocPath, sel: BrokerSelector, at: StepChecks): void {
  if (typeof sel === 'number') return at.checkBroker(path, sel);
  if ('leaderOf' in sel) return at.checkTopic([...path, 'leaderOf', 'topic'], sel.leaderOf.topic);
  at.checkLabel([...path, 'brokerOf'], sel.brokerOf, at.index, (s) =>
    at.actsOn(s) === 'broker'
      ? undefined
      : `does not act on a broker (${orList(at.actionsActingOn('broker'))})`,
  );
}

export function checkControllerAction(path: DocPath, action: ControllerAction, at: StepChecks): void {
  const delayed = typeof action === 'object' && 'controller' in action;
  const sel = delayed ? action.controller : action;
  if (delayed) path = [...path, 'controller'];
  if (sel === 'active') return;
  if (typeof sel === 'number') return at.checkController(path, sel);
  at.checkLabel([...path, 'controllerOf'], sel.controllerOf, at.index, (s) =>
    at.actsOn(s) === 'controller'
      ? undefined
      : `does not act on a controller (${orList(at.actionsActingOn('controller'))})`,
  );
}

/** A network node's id: a broker id, `controller` (the first controller), `controller-<id>` or a client name. */
export function nodeId(ref: NodeRef): NodeId {
  if (typeof ref === 'number') return brokerNodeId(ref);
  return ref === 'controller' ? CONTROLLER_NODE : ref;
}
