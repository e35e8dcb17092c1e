// Preload for the conformance harness process (`NODE_OPTIONS=--import=…`): every TCP server
// that listens without a host (all interfaces) listens on 127.0.0.1 instead.
//
// The harness's mock servers call `listen(0)` and read `server.address().port` on the next
// line. Passing a host to `listen()` (what `packages/fixtures/src/loopback.mjs` does) makes Node resolve
// it first, so the bind happens a tick later and `address()` is still null at that point: the
// auth and elicitation scenarios then crash at start. Node binds through `_listen2(address,
// port, addressType, …)` synchronously once the address is known; swapping the unspecified
// address there keeps the bind synchronous. (`_listen2` is Node's legacy alias of its internal
// `setupListenHandle`, present on Node 20 and 22.)
import net from 'node:net';

const listen2 = net.Server.prototype._listen2;
if (typeof listen2 !== 'function') {
  throw new Error('loopback-preload: net.Server.prototype._listen2 is missing on this Node.');
}
net.Server.prototype._listen2 = function listenOnLoopback(address, port, addressType, ...rest) {
  const unspecified =
    address === null || address === undefined || address === '::' || address === '0.0.0.0';
  return unspecified
    ? listen2.call(this, '127.0.0.1', port, 4, ...rest)
    : listen2.call(this, address, port, addressType, ...rest);
};
