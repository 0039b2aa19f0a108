/**
 * A minimal authoritative DNS server on loopback UDP for tests (RFC 1035 §4): it answers A queries
 * for the names it is given, NOERROR with no answer (NODATA) for other record types of those names,
 * and NXDOMAIN for every other name. Every question it receives is logged, so a test can tell which
 * lookups reached it.
 */
import { createSocket, type Socket } from 'node:dgram';

/** A running test DNS server. */
export interface TestDnsServer {
  /** `127.0.0.1:PORT`, the form `network.dnsServers` takes. */
  readonly address: string;
  /** Questions received, as `TYPE name` (`A a.test`, `AAAA a.test`, `TYPE15 a.test`). */
  readonly queries: string[];
  close(): Promise<void>;
}

const TYPE_A = 1;
const TYPE_AAAA = 28;
const RCODE_NXDOMAIN = 3;
const RCODE_FORMERR = 1;

/** The question of a query: its name (lower case), type, and the offset just after it. */
function question(msg: Buffer): { name: string; type: number; end: number } | null {
  let i = 12;
  const labels: string[] = [];
  while (i < msg.length) {
    const len = msg[i] as number;
    if (len === 0) {
      i++;
      break;
    }
    if (len > 63 || i + 1 + len > msg.length) return null;
    labels.push(msg.toString('latin1', i + 1, i + 1 + len).toLowerCase());
    i += 1 + len;
  }
  if (i + 4 > msg.length) return null;
  return { name: labels.join('.'), type: msg.readUInt16BE(i), end: i + 4 };
}

function answer(query: Buffer, records: ReadonlyMap<string, string>, ttlSeconds: number, log: string[]): Buffer {
  const q = question(query);
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2);
  // QR (a response), the query's RD copied, RA; AA since this server is the whole truth.
  const rd = (query[2] as number) & 1;
  if (q === null) {
    header.writeUInt16BE(0x8400 | (rd << 8) | 0x80 | RCODE_FORMERR, 2);
    return header;
  }
  log.push(`${q.type === TYPE_A ? 'A' : q.type === TYPE_AAAA ? 'AAAA' : `TYPE${q.type}`} ${q.name}`);
  const ip = records.get(q.name);
  const hasAnswer = ip !== undefined && q.type === TYPE_A;
  header.writeUInt16BE(0x8400 | (rd << 8) | 0x80 | (ip === undefined ? RCODE_NXDOMAIN : 0), 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(hasAnswer ? 1 : 0, 6);
  const parts = [header, query.subarray(12, q.end)];
  if (hasAnswer) {
    const rr = Buffer.alloc(16);
    rr.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
    rr.writeUInt16BE(TYPE_A, 2);
    rr.writeUInt16BE(1, 4); // class IN
    rr.writeUInt32BE(ttlSeconds, 6);
    rr.writeUInt16BE(4, 10);
    ip.split('.').forEach((octet, k) => rr.writeUInt8(Number(octet), 12 + k));
    parts.push(rr);
  }
  return Buffer.concat(parts);
}

/**
 * A server of limited capacity, as public resolvers are: each answer leaves `delayMs` after its
 * query, and a query that finds `maxPending` still unanswered is dropped (not logged).
 */
export interface DnsServerLoad {
  readonly delayMs: number;
  readonly maxPending: number;
}

/**
 * Starts a server on 127.0.0.1 (a free port) answering `records` (name -> IPv4 address) with
 * `ttlSeconds`, at once or, with `load`, as a server of limited capacity.
 */
export async function startTestDnsServer(
  records: ReadonlyMap<string, string>,
  ttlSeconds = 60,
  load: DnsServerLoad | null = null,
): Promise<TestDnsServer> {
  const lower = new Map([...records].map(([name, ip]) => [name.toLowerCase(), ip]));
  const queries: string[] = [];
  const socket: Socket = createSocket('udp4');
  let pending = 0;
  let isClosed = false;
  socket.on('message', (msg, peer) => {
    if (msg.length < 12) return;
    if (load === null) {
      socket.send(answer(msg, lower, ttlSeconds, queries), peer.port, peer.address);
      return;
    }
    if (pending >= load.maxPending) return;
    pending++;
    setTimeout(() => {
      pending--;
      if (!isClosed) socket.send(answer(msg, lower, ttlSeconds, queries), peer.port, peer.address);
    }, load.delayMs);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(0, '127.0.0.1', () => {
      socket.off('error', reject);
      resolve();
    });
  });
  return {
    address: `127.0.0.1:${socket.address().port}`,
    queries,
    close: () => {
      isClosed = true;
      return new Promise<void>((resolve) => socket.close(() => resolve()));
    },
  };
}
