/**
 * The request bytes for a WARC request record: the exact header string undici writes, taken from its
 * `undici:client:sendHeaders` diagnostics channel. undici publishes it synchronously right after a
 * dispatch handler learns its request got a socket, so the handler that was told last
 * ({@link expectRequestHeaders}) is the one the message belongs to. The same message names the
 * socket, which gives the IP connected to and whether the connection is new.
 *
 * One subscription serves the whole process; each fetcher holds it from construction to close.
 */
import { channel } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';

/** What a handler does with the message meant for it. */
export type RequestCapture = (request: { readonly method?: string; readonly path?: string }, headers: string, socket: Socket) => void;

const sendHeadersChannel = channel('undici:client:sendHeaders');
let pendingCapture: RequestCapture | null = null;
let subscribers = 0;

function onSendHeaders(message: unknown): void {
  const capture = pendingCapture;
  pendingCapture = null;
  const m = message as { request: { method?: string; path?: string }; headers: string; socket: Socket };
  capture?.(m.request, m.headers, m.socket);
}

/** Hands the next "request written" message to `capture` (called when a request gets its socket). */
export function expectRequestHeaders(capture: RequestCapture): void {
  pendingCapture = capture;
}

/** Starts listening, for one more fetcher. */
export function holdRequestCapture(): void {
  if (subscribers++ === 0) sendHeadersChannel.subscribe(onSendHeaders);
}

/** Stops listening once no fetcher holds the subscription. */
export function releaseRequestCapture(): void {
  if (--subscribers === 0) sendHeadersChannel.unsubscribe(onSendHeaders);
}
