import type { MemberOrdering } from './types.ts';

/** Sign of Java's String.compareTo: both compare UTF-16 code units, which is what `<` does on JS strings. */
export function compareUtf16(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Byte order of the UTF-8 encodings (memcmp, as librdkafka's rd_kafkap_str_cmp and strcmp), which is
 * code point order. It differs from UTF-16 order only for characters above U+FFFF vs U+E000..U+FFFF.
 */
export function compareUtf8(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const ca = a.codePointAt(i)!;
    const cb = b.codePointAt(j)!;
    if (ca !== cb) return ca < cb ? -1 : 1;
    i += ca > 0xffff ? 2 : 1;
    j += cb > 0xffff ? 2 : 1;
  }
  const restA = a.length - i;
  const restB = b.length - j;
  return restA === restB ? 0 : restA < restB ? -1 : 1;
}

export interface OrderedMember {
  memberId: string;
  groupInstanceId: string | undefined;
}

function javaOrder(a: OrderedMember, b: OrderedMember): number {
  const ia = a.groupInstanceId;
  const ib = b.groupInstanceId;
  let c: number;
  if (ia !== undefined && ib !== undefined) c = compareUtf16(ia, ib);
  else if (ia !== undefined) c = -1;
  else if (ib !== undefined) c = 1;
  else c = 0;
  // Java leaves equal instance ids to HashMap order; member id makes the order total and deterministic.
  return c !== 0 ? c : compareUtf16(a.memberId, b.memberId);
}

function librdkafkaOrder(a: OrderedMember, b: OrderedMember): number {
  const ia = a.groupInstanceId;
  const ib = b.groupInstanceId;
  const c = ia !== undefined && ib !== undefined ? compareUtf8(ia, ib) : 0;
  return c !== 0 ? c : compareUtf8(a.memberId, b.memberId);
}

export function memberComparator(ordering: MemberOrdering): (a: OrderedMember, b: OrderedMember) => number {
  return ordering === 'java' ? javaOrder : librdkafkaOrder;
}

/**
 * Sorts members for an order-dependent assignor. librdkafka's comparator is not transitive when static and
 * dynamic members are mixed (it can form cycles), so its result depends on the sort algorithm and on the
 * starting order; we start from member-id order and use the stable Array sort so the result depends only
 * on the set of members. glibc's qsort may order such a cyclic mix differently; any other mix is exact.
 */
export function sortMembers<M extends OrderedMember>(
  membersByMemberId: readonly M[],
  ordering: MemberOrdering,
): M[] {
  return [...membersByMemberId].sort(memberComparator(ordering));
}
