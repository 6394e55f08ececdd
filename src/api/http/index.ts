export * from './types.js';
export * from './body.js';
export { createDispatcher, CONNECTION_DEFAULTS, type ConnectionOptions, type Dispatcher } from './dispatcher.js';
export { sendOnce, mapTransportError } from './send.js';
export { sendFollowingRedirects } from './redirects.js';
