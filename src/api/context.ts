// What every route needs: the served world, the pacer, and the small lookups that turn path parameters into
// simulated objects or the spec's 404s.
import type { FastifyRequest } from 'fastify';
import type { Broker } from '../../models/broker/index.ts';
import type { MetadataImage, PartitionRegistration, TopicImage } from '../../models/metadata/index.ts';
import { ApiError, BROKER_NOT_AVAILABLE, notFound, unknownTopicOrPartition } from './errors.ts';
import type { SimHost } from './host.ts';
import type { Pacer } from './pacer.ts';
import type { World } from './world.ts';

export interface ApiContext {
  host: SimHost;
  pacer: Pacer;
}

/** The base URL links are built from, as the request reached the server (Confluent's UrlFactory does the same). */
export function baseUrl(req: FastifyRequest): string {
  return `${req.protocol}://${req.host}`;
}

/** The world whose cluster id is `clusterId`, or the spec's 404. */
export function worldOf(ctx: ApiContext, clusterId: string): World {
  const world = ctx.host.world;
  if (clusterId !== world.clusterId) throw notFound(`Cluster ${clusterId} cannot be found.`);
  return world;
}

/**
 * The broker reads go to, as a tool's bootstrap connection would: the first live registered broker by id. Its
 * image may lag the controller's by a little, as real metadata does.
 */
export function readBroker(world: World): Broker {
  for (const b of world.cluster.brokers.values()) if (b.up && b.brokerEpoch >= 0) return b;
  throw new ApiError(503, BROKER_NOT_AVAILABLE, 'The broker is not available.');
}

export function readImage(world: World): MetadataImage {
  return readBroker(world).image;
}

export function topicOf(image: MetadataImage, name: string): TopicImage {
  const t = Object.hasOwn(image.topics, name) ? image.topics[name] : undefined;
  if (!t) throw unknownTopicOrPartition();
  return t;
}

export function partitionOf(topic: TopicImage, partition: number): PartitionRegistration {
  const p = topic.partitions[partition];
  if (!p) throw notFound(`Partition ${partition} of topic ${topic.name} cannot be found.`);
  return p;
}
