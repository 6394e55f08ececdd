export * from './api-error.js';
export * from './job-errors.js';
export * from './guards.js';
export { createApiError, parseErrorBody, type ErrorResponse } from './factory.js';
