// The Confluent REST v3 envelope: every resource has `kind`, `metadata.self` (its URL) and
// `metadata.resource_name` (a CRN), links are `{related: URL}`, lists are `{kind: ...List, metadata: {self,
// next: null}, data: [...]}`. Facts: confluentinc/kafka-rest `api/v3/openapi.yaml` (examples)
// and `resources/v3/*Resource.java` (which URL each link points at).

export interface Relationship {
  related: string;
}

export interface ResourceMetadata {
  self: string;
  resource_name: string | null;
}

export interface Resource {
  kind: string;
  metadata: ResourceMetadata;
}

export interface ResourceList<T> {
  kind: string;
  metadata: { self: string; next: string | null };
  data: T[];
}

const seg = (s: string | number) => encodeURIComponent(String(s));

/** Builds the URLs and resource names of one cluster as seen from one base URL. */
export class Links {
  readonly cluster: string;
  constructor(
    readonly base: string,
    readonly clusterId: string,
  ) {
    this.cluster = `${base}/v3/clusters/${seg(clusterId)}`;
  }

  /** `<base>/v3/clusters/<id>/<segments...>`; segments are URL-encoded, `-` stays as the spec's wildcard. */
  url(...segments: (string | number)[]): string {
    return segments.length === 0 ? this.cluster : `${this.cluster}/${segments.map(seg).join('/')}`;
  }

  related(...segments: (string | number)[]): Relationship {
    return { related: this.url(...segments) };
  }

  /** `crn:///kafka=<id>/k=v/...`: pairs as given (a lone string is appended as is). */
  crn(...parts: string[]): string {
    return [`crn:///kafka=${this.clusterId}`, ...parts].join('/');
  }
}

export function resource<T extends object>(
  kind: string,
  self: string,
  resourceName: string,
  fields: T,
): Resource & T {
  return { kind, metadata: { self, resource_name: resourceName }, ...fields };
}

export function resourceList<T>(kind: string, self: string, data: T[]): ResourceList<T> {
  return { kind, metadata: { self, next: null }, data };
}
