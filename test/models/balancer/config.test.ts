// The auto-balancer's keys keep AutoMQ's names and defaults, parse as Kafka config values, and are checked.
import { describe, expect, it } from 'vitest';
import {
  createGoals,
  DEFAULT_AUTO_BALANCER_CONFIG,
  NetworkInUsageDistributionGoal,
  parseAutoBalancerOverrides,
  ReplicaCountDistributionGoal,
  registerGoal,
  resolveAutoBalancerConfig,
} from '../../../models/balancer/index.ts';

describe('auto-balancer config', () => {
  it("has AutoMQ's keys and defaults", () => {
    expect(DEFAULT_AUTO_BALANCER_CONFIG).toEqual({
      'autobalancer.controller.enable': true,
      'autobalancer.controller.anomaly.detect.interval.ms': 60000,
      'autobalancer.controller.metrics.delay.ms': 60000,
      'autobalancer.controller.goals':
        'kafka.autobalancer.goals.NetworkInUsageDistributionGoal,kafka.autobalancer.goals.NetworkOutUsageDistributionGoal',
      'autobalancer.controller.network.in.usage.distribution.detect.threshold': 1048576,
      'autobalancer.controller.network.out.usage.distribution.detect.threshold': 1048576,
      'autobalancer.controller.network.in.distribution.detect.avg.deviation': 0.1,
      'autobalancer.controller.network.out.distribution.detect.avg.deviation': 0.1,
      'autobalancer.controller.network.in.trivial.change.ratio': 0.05,
      'autobalancer.controller.network.out.trivial.change.ratio': 0.05,
      'autobalancer.controller.execution.concurrency': 50,
      'autobalancer.controller.execution.interval.ms': 5000,
      'autobalancer.controller.exclude.broker.ids': '',
      'autobalancer.controller.exclude.topics': '',
      'autobalancer.controller.topic.num.partitions': 1,
      'autobalancer.controller.topic.retention.ms': 1800000,
      'autobalancer.reporter.metrics.reporting.interval.ms': 10000,
      's3.network.baseline.bandwidth': 104857600,
    });
  });

  it('parses text values and lists as server.properties would give them', () => {
    const c = resolveAutoBalancerConfig({
      'autobalancer.controller.enable': 'false',
      'autobalancer.controller.execution.interval.ms': '2500',
      'autobalancer.controller.exclude.broker.ids': ' 1, 2 ,',
      'autobalancer.controller.exclude.topics': ['a', 'b'],
    });
    expect(c['autobalancer.controller.enable']).toBe(false);
    expect(c['autobalancer.controller.execution.interval.ms']).toBe(2500);
    expect(c['autobalancer.controller.exclude.broker.ids']).toBe('1,2');
    expect(c['autobalancer.controller.exclude.topics']).toBe('a,b');
  });

  it('rejects unknown keys and bad values', () => {
    expect(() => parseAutoBalancerOverrides({ 'autobalancer.controller.nope': 1 } as never)).toThrow(
      /Unknown auto-balancer config 'autobalancer.controller.nope'/,
    );
    expect(() => parseAutoBalancerOverrides({ 'autobalancer.controller.enable': 'yes' })).toThrow(
      /true or false/,
    );
    expect(() => parseAutoBalancerOverrides({ 'autobalancer.controller.metrics.delay.ms': 0 })).toThrow(
      /should be positive/,
    );
    expect(() => parseAutoBalancerOverrides({ 'autobalancer.controller.execution.concurrency': -1 })).toThrow(
      /at least 0/,
    );
    expect(() => parseAutoBalancerOverrides({ 'autobalancer.controller.exclude.broker.ids': 'x' })).toThrow(
      /not a broker id/,
    );
  });

  it("clamps the band's deviation to [0, 1] as AutoMQ's network goals do, and refuses text that is no double", () => {
    const key = 'autobalancer.controller.network.in.distribution.detect.avg.deviation';
    const band = (value: number | string) => {
      const goal = new NetworkInUsageDistributionGoal();
      goal.configure(resolveAutoBalancerConfig({ [key]: value }));
      return goal.settings.avgDeviation;
    };
    expect(band(1.5)).toBe(1);
    expect(band('-0.2')).toBe(0);
    expect(band(0.3)).toBe(0.3);
    // The configured value itself is kept as given (AutoMQ's config holds it; only the goal clamps).
    expect(parseAutoBalancerOverrides({ [key]: 2 })[key]).toBe(2);
    expect(() => parseAutoBalancerOverrides({ [key]: 'wide' })).toThrow(
      `Invalid value wide for configuration ${key}: Not a number of type DOUBLE`,
    );
  });

  it('creates goals by class name or simple name, and knows registered user goals', () => {
    expect(
      createGoals([
        'kafka.autobalancer.goals.NetworkOutUsageDistributionGoal',
        'NetworkInUsageDistributionGoal',
      ]).map((g) => g.name),
    ).toEqual(['NetworkOutUsageDistributionGoal', 'NetworkInUsageDistributionGoal']);
    expect(() => createGoals(['com.example.Nope'])).toThrow(/Unknown auto-balancer goal 'com.example.Nope'/);
    registerGoal(
      'com.example.FewerPartitionsGoal',
      () => new ReplicaCountDistributionGoal({ name: 'Fewer' }),
    );
    expect(createGoals(['FewerPartitionsGoal'])[0]!.name).toBe('Fewer');
  });
});
