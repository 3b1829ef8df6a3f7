// A gateway that closes idle keep-alive connections after 300 ms and says nothing about it: nginx,
// cloud load balancers and service meshes send no `Keep-Alive: timeout=N`, so a client that pools
// connections finds out only when a request it sends on a pooled one meets the close.

import { defineProfile } from './types.js';

export const profile = defineProfile({
  name: 'idle-close',
  description:
    'a gateway closes keep-alive connections idle for 300 ms, without announcing a timeout (no Keep-Alive header, as nginx and cloud load balancers)',
  transport: { keepAliveMs: 300, advertiseKeepAlive: false },
});
