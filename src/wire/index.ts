export * from './media.js';
export * from './resources.js';
export * from './errors.js';
export * from './imports.js';
export * from './int64.js';
