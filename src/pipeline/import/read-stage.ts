import { parseRecords } from '../../formats/index.js';
import { createInputSource, type InputSourceOptions } from '../../sources/index.js';
import { createStageProcessor, type ChannelIdLookup, type Processed } from '../../transform/index.js';
import { stageProcessorSpec, type PipelineConfig, type StageConfig } from '../../config/index.js';
import { readSlackStageRecords } from '../slack/index.js';

/**
 * One stage's input as processed records: every source location expanded (globs, prefixes), every object
 * parsed in a stable order, every record mapped and validated. Each read yields the same records in the
 * same order, which is what lets a resumed run rebuild byte-identical chunks.
 */
export async function* readStageRecords(
  config: PipelineConfig,
  stage: StageConfig,
  deps: { channelIds?: ChannelIdLookup; sources?: InputSourceOptions; signal?: AbortSignal },
): AsyncGenerator<Processed> {
  // Stages of a `slack:` block are read and mapped from the export by the Slack reader.
  if (stage.slack) return yield* readSlackStageRecords(config, stage, stage.slack, deps);
  const process = createStageProcessor(stageProcessorSpec(config, stage), deps.channelIds ? { channelIds: deps.channelIds } : {});
  const { source } = stage;
  for (const location of source.paths) {
    for await (const input of createInputSource(location, deps.sources ?? {}).listInputs()) {
      if (deps.signal?.aborted) return;
      const records = parseRecords(input.open(), {
        file: input.uri,
        gzip: source.gzip,
        csv: source.csv,
        ...(source.format ? { format: source.format } : {}),
      });
      for await (const item of records) {
        yield process(item);
        // Checked per record so that a signal stops reading promptly; the generator's return closes the file.
        if (deps.signal?.aborted) return;
      }
    }
  }
}

/** The S3 settings of a pipeline file, as the sources take them. */
export function sourceOptionsOf(config: PipelineConfig): InputSourceOptions {
  if (!config.s3) return {};
  const { region, endpoint, forcePathStyle, checksums } = config.s3;
  return {
    s3: {
      forcePathStyle,
      ...(region ? { region } : {}),
      ...(endpoint ? { endpoint } : {}),
      ...(checksums ? { checksums } : {}),
    },
  };
}
