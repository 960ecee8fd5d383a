// Preloaded into the gateways a chain starts (node --import): a server whose listen() names
// no host binds 127.0.0.1 instead of every interface. Only the address changes; what the
// gateway relays, and how, is untouched. Some gateways (supergateway) offer no host option.
import net from 'node:net';

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const [first, second] = args;
  if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    if (typeof second !== 'string') args.splice(1, 0, '127.0.0.1');
  } else if (first && typeof first === 'object' && !first.path && first.host === undefined) {
    args[0] = { ...first, host: '127.0.0.1' };
  }
  return listen.apply(this, args);
};
