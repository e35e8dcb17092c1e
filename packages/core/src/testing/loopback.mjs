// Preload (`node --import ./loopback.mjs server.js`) that forces every TCP server in the process
// onto 127.0.0.1. `@modelcontextprotocol/server-everything` calls `app.listen(PORT)` with no host,
// which would bind all interfaces; this keeps it on loopback.
import net from 'node:net';

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function listenOnLoopback(...args) {
  if (typeof args[0] === 'number' || (typeof args[0] === 'string' && /^\d+$/.test(args[0]))) {
    const port = Number(args[0]);
    const rest = args
      .slice(1)
      .filter((arg) => typeof arg === 'function' || typeof arg === 'number');
    const callback = rest.find((arg) => typeof arg === 'function');
    return listen.call(this, port, '127.0.0.1', ...(callback ? [callback] : []));
  }
  if (
    args[0] !== null &&
    typeof args[0] === 'object' &&
    !('fd' in args[0]) &&
    !('path' in args[0])
  ) {
    return listen.call(this, { ...args[0], host: '127.0.0.1' }, ...args.slice(1));
  }
  return listen.apply(this, args);
};
