/**
 * The IPC protocol between the web bench (parent, load generator) and the test-web server it
 * forks (child): the parent asks for pages to request and for CPU/memory figures, the child
 * answers each request with the same `id`.
 */

/** How requests reach a host: through the forward proxy, or on the host's own address. */
export type AddressMode = 'proxy' | 'direct';

/** Which pages the parent wants to request. */
export interface PageQuery {
  /** Distinct pages wanted. */
  readonly count: number;
  readonly mode: AddressMode;
  /** Direct mode: pick pages only on this many addresses (spread evenly over the pool). */
  readonly addressCount: number;
  /** Seed of the sampling. */
  readonly seed: number;
  /** Skip hosts that add latency on purpose (slow hosts cost no CPU, only time). */
  readonly excludeSlowHosts: boolean;
}

/** One page to request. */
export interface PageRef {
  /** `name:port`, for the Host header and the absolute-form URL. */
  readonly authority: string;
  /** Address the host answers on. */
  readonly ip: string;
  /** Canonical request path. */
  readonly path: string;
}

/** The server child's resource figures at one moment. */
export interface ServerStats {
  /** User + system CPU time since the child started, in µs. */
  readonly cpuUs: number;
  /** The system (kernel) part of it, in µs: socket writes and reads mostly. */
  readonly systemUs: number;
  readonly rssBytes: number;
  /** Highest RSS sampled (every 100 ms) since the child started. */
  readonly peakRssBytes: number;
  readonly heapUsedBytes: number;
  /** Memory of Buffers and typed arrays (outside the JS heap): rendered bodies, the model's arrays. */
  readonly arrayBuffersBytes: number;
  /** Requests the server's own log has seen. */
  readonly requestsSeen: number;
}

/** What the child tells once it serves. */
export interface ReadyInfo {
  readonly port: number;
  readonly proxyUrl: string | null;
  /** Time `startTestWeb` took (model build + listening), in ms. */
  readonly buildMs: number;
  readonly rssBytes: number;
  readonly pageCount: number;
  readonly hostCount: number;
  readonly addressCount: number;
  readonly slowHostCount: number;
}

/** Parent -> child. */
export type ParentMessage =
  | { readonly type: 'pages'; readonly id: number; readonly query: PageQuery }
  | { readonly type: 'stats'; readonly id: number }
  /** Empty the server's request log (its kept records; counts stay). */
  | { readonly type: 'clear-log'; readonly id: number }
  | { readonly type: 'stop'; readonly id: number };

/** Child -> parent. */
export type ChildMessage =
  | { readonly type: 'ready'; readonly info: ReadyInfo }
  | { readonly type: 'pages'; readonly id: number; readonly pages: readonly PageRef[] }
  | { readonly type: 'stats'; readonly id: number; readonly stats: ServerStats }
  | { readonly type: 'done'; readonly id: number }
  | { readonly type: 'stopped'; readonly id: number }
  | { readonly type: 'error'; readonly message: string };

const PARENT_TYPES = new Set(['pages', 'stats', 'clear-log', 'stop']);
const CHILD_TYPES = new Set(['ready', 'pages', 'stats', 'done', 'stopped', 'error']);

function hasType(msg: unknown, types: ReadonlySet<string>): msg is { type: string } {
  return typeof msg === 'object' && msg !== null && 'type' in msg && typeof msg.type === 'string' && types.has(msg.type);
}

/** Whether an IPC message is one the parent sends (the channel is ours alone, so the tag is enough). */
export function isParentMessage(msg: unknown): msg is ParentMessage {
  return hasType(msg, PARENT_TYPES);
}

/** Whether an IPC message is one the child sends. */
export function isChildMessage(msg: unknown): msg is ChildMessage {
  return hasType(msg, CHILD_TYPES);
}
