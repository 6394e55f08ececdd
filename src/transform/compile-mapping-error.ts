import { ConfigError } from '../shared/errors.js';

/** A mapping that cannot be compiled; `details.path` is the path inside the mapping (`properties.full`). */
export class MappingError extends ConfigError {
  constructor(message: string, path: string) {
    super(message, { path });
  }
}
