import type { StageConfig } from '../../config/index.js';
import { createInputSource, type InputObject, type InputSourceOptions } from '../../sources/index.js';

/**
 * Every object a stage's locations name, each once, in the order first named. Two locations naming the
 * same file or key (`users.csv` and `*.csv`) give one input, as the files a shell or a warehouse loader
 * takes are a set: read twice, its records would be counted twice, each a "duplicate" of itself. Each
 * location must still name at least one object (the sources throw INPUT_MISSING).
 */
export async function listStageInputs(stage: StageConfig, sources: InputSourceOptions): Promise<InputObject[]> {
  const inputs: InputObject[] = [];
  const seen = new Set<string>();
  for (const location of stage.source.paths)
    for await (const input of createInputSource(location, sources).listInputs()) {
      if (seen.has(input.uri)) continue;
      seen.add(input.uri);
      inputs.push(input);
    }
  return inputs;
}
