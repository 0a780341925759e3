/**
 * IncrementalAlterConfigs for topics and brokers, as Kafka's `ConfigurationControlManager`
 * (incrementalAlterConfigResource, validateAlterConfig) with `ControllerConfigurationValidator` and the
 * existence check in `QuorumController.ConfigResourceExistenceChecker`:
 *
 * - the resource's whole override set after the change is validated first (unknown topic config names, bad
 *   values: INVALID_CONFIG), then the resource must exist ("The topic 'x' does not exist.", "No broker with
 *   id N found.");
 * - a topic key whose value does not change writes no record; a broker key always does (KAFKA-14136, so
 *   brokers reload);
 * - broker keys are not checked here: in Kafka the broker that forwards the request validates them.
 *
 * Left out: APPEND and SUBTRACT, the legacy AlterConfigs API, alter-config policies.
 */

import { type ConfigRecord, configMap, isForbiddenConfigName, topicByName } from '../metadata/index.ts';
import type { IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse } from '../protocol/index.ts';
import { validateTopicConfigs } from './config.ts';
import {
  type ControlContext,
  type ControlResult,
  catchKafkaError,
  fail,
  NO_ERROR,
} from './control-context.ts';

type Resource = IncrementalAlterConfigsRequest['resources'][number];

export function incrementalAlterConfigs(
  ctx: ControlContext,
  req: IncrementalAlterConfigsRequest,
): ControlResult<IncrementalAlterConfigsResponse> {
  const validateOnly = req.validateOnly === true;
  const records: ConfigRecord[] = [];
  const resources: IncrementalAlterConfigsResponse['resources'] = [];
  for (const resource of req.resources) {
    const where = { resourceType: resource.resourceType, resourceName: resource.resourceName };
    const outcome = catchKafkaError(() => planResource(ctx, resource));
    if (!outcome.ok) {
      resources.push({ ...where, ...outcome.error });
      ctx.emit('controller.alter-configs', { ...where, validateOnly, ...outcome.error });
      continue;
    }
    resources.push({ ...where, ...NO_ERROR });
    if (!validateOnly) records.push(...outcome.value);
    ctx.emit('controller.alter-configs', {
      ...where,
      validateOnly,
      changes: outcome.value.map((r) => ({ name: r.name, value: r.value })),
    });
  }
  return { records, response: { resources } };
}

function planResource(ctx: ControlContext, resource: Resource): ConfigRecord[] {
  const image = ctx.image;
  const { resourceType, resourceName } = resource;
  const seen = new Set<string>();
  for (const op of resource.configs) {
    // Never a config name, for any resource (config-map.ts): refused before anything else looks at it.
    if (isForbiddenConfigName(op.name)) fail('INVALID_CONFIG', `Invalid config name: ${op.name}`);
    if (seen.has(op.name)) fail('INVALID_REQUEST', 'Error due to duplicate config keys');
    seen.add(op.name);
    if (op.op === 'SET' && (op.value === undefined || op.value === null)) {
      const kind = resource.resourceType === 'TOPIC' ? 'topic' : 'broker';
      fail('INVALID_CONFIG', `Null value not supported for ${kind} configs: ${op.name}`);
    }
  }
  const current =
    resourceType === 'TOPIC'
      ? (image.configs.topic[resourceName] ?? {})
      : (image.configs.broker[resourceName] ?? {});
  const next = configMap(current);
  const records: ConfigRecord[] = [];
  for (const op of resource.configs) {
    const before = Object.hasOwn(current, op.name) ? current[op.name] : undefined;
    const value = op.op === 'SET' ? op.value! : null;
    if (value === null) delete next[op.name];
    else next[op.name] = value;
    if (resourceType === 'BROKER' || (before ?? null) !== value) {
      records.push({ type: 'ConfigRecord', resourceType, resourceName, name: op.name, value });
    }
  }
  if (resourceType === 'TOPIC') {
    if (resourceName === '') fail('INVALID_REQUEST', 'Default topic resources are not allowed.');
    const error = validateTopicConfigs(next);
    if (error) throw error;
    if (!topicByName(image, resourceName)) {
      fail('UNKNOWN_TOPIC_OR_PARTITION', `The topic '${resourceName}' does not exist.`);
    }
  } else if (resourceType === 'BROKER') {
    if (resourceName !== '') {
      if (!/^-?\d+$/.test(resourceName))
        fail('INVALID_REQUEST', `Unable to parse broker name ${resourceName}`);
      const id = Number(resourceName);
      if (id < 0) fail('INVALID_REQUEST', 'Invalid negative broker ID.');
      if (!Object.hasOwn(image.brokers, id))
        fail('BROKER_ID_NOT_REGISTERED', `No broker with id ${id} found.`);
    }
  } else {
    fail('INVALID_REQUEST', `Unsupported resource type ${String(resourceType)}`);
  }
  return records;
}
