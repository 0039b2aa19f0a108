import assert from 'node:assert/strict';
import { Duplex } from 'node:stream';
import { describe, test } from 'node:test';
import { hideContinueResponses, interimHeadLength, MAX_INTERIM_HEAD_BYTES } from '../../../src/fetch/interim-responses.js';

const bytes = (s: string): Buffer => Buffer.from(s, 'latin1');

describe('interimHeadLength', () => {
  test('a complete 100 head is measured up to its empty line, with CRLF or bare LF', () => {
    assert.equal(interimHeadLength(bytes('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n')), 25);
    assert.equal(interimHeadLength(bytes('HTTP/1.1 100\r\n\r\n')), 16);
    assert.equal(interimHeadLength(bytes('HTTP/1.0 100 Continue\nServer: x\n\nrest')), 33);
    assert.equal(interimHeadLength(bytes('HTTP/1.1 100 Continue\r\nX-A: 1\r\nX-B: 2\r\n\r\n')), 41);
  });

  test('a prefix that could still be a 100 head asks for more', () => {
    for (const s of ['H', 'HTTP/1.', 'HTTP/1.1 1', 'HTTP/1.1 100', 'HTTP/1.1 100 Continue\r\n', 'HTTP/1.1 100 Continue\r\nX: y\r\n\r']) {
      assert.equal(interimHeadLength(bytes(s)), 'more', JSON.stringify(s));
    }
  });

  test('anything else is not an interim head: other codes, other versions, a body', () => {
    for (const s of [
      'HTTP/1.1 200 OK\r\n\r\n',
      'HTTP/1.1 103 Early Hints\r\n\r\n',
      'HTTP/1.1 101 Switching Protocols\r\n\r\n',
      'HTTP/1.1 1000 Odd\r\n\r\n',
      'HTTP/1.1 10\r\n\r\n',
      'HTTP/2 100\r\n\r\n',
      'http/1.1 100 Continue\r\n\r\n',
      'HTTP/1.x 100 Continue\r\n\r\n',
      '<html>',
      '\x16\x03\x01',
    ]) {
      assert.equal(interimHeadLength(bytes(s)), 'none', JSON.stringify(s));
    }
  });
});

describe('hideContinueResponses', () => {
  /** A wrapped duplex standing for a socket: `arrive` pushes bytes as received and returns what a read gets; writes go nowhere. */
  function wrapped(): { socket: Duplex; arrive: (s: string | Buffer) => string } {
    const socket = new Duplex({ read: () => undefined, write: (_chunk, _encoding, done) => done() });
    hideContinueResponses(socket);
    return {
      socket,
      arrive(s) {
        socket.push(typeof s === 'string' ? bytes(s) : s);
        const got = socket.read() as Buffer | null;
        return got === null ? '' : got.toString('latin1');
      },
    };
  }

  test('100 heads before the final response are dropped, also when they arrive a byte at a time', () => {
    const { arrive } = wrapped();
    const wire = 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 100 Continue\r\nX: 1\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok';
    let seen = '';
    for (const c of wire) seen += arrive(c);
    assert.equal(seen, 'HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok');
  });

  test('once the final response has begun, its bytes pass untouched until the next request is written', () => {
    const { socket, arrive } = wrapped();
    assert.equal(arrive('HTTP/1.1 200 OK\r\ncontent-length: 26\r\n\r\n'), 'HTTP/1.1 200 OK\r\ncontent-length: 26\r\n\r\n');
    // A body that happens to look like an interim head is the body.
    assert.equal(arrive('HTTP/1.1 100 Continue\r\n\r\n'), 'HTTP/1.1 100 Continue\r\n\r\n');
    socket.write('GET /next HTTP/1.1\r\n\r\n');
    assert.equal(arrive('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n'), 'HTTP/1.1 204 No Content\r\n\r\n');
  });

  test('other 1xx responses are left to the reader', () => {
    const { arrive } = wrapped();
    const wire = 'HTTP/1.1 103 Early Hints\r\nlink: </a.css>\r\n\r\nHTTP/1.1 200 OK\r\n\r\n';
    assert.equal(arrive(wire), wire);
  });

  test('an interim head too long to be one is passed on whole, for the reader to refuse', () => {
    const { arrive } = wrapped();
    const long = `HTTP/1.1 100 Continue\r\nX: ${'a'.repeat(MAX_INTERIM_HEAD_BYTES)}`;
    assert.equal(arrive(long), long);
    assert.equal(arrive('\r\n\r\n'), '\r\n\r\n');
  });

  test('read(0) and an empty read leave what is held alone', () => {
    const { socket, arrive } = wrapped();
    assert.equal(arrive('HTTP/1.1 100 Cont'), '');
    assert.equal(socket.read(0), null);
    assert.equal(socket.read(), null);
    assert.equal(arrive('inue\r\n\r\nHTTP/1.1 200 OK\r\n\r\n'), 'HTTP/1.1 200 OK\r\n\r\n');
  });
});
