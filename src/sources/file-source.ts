/** Local files: one path, every file below a directory, or a glob (`data/**\/*.csv.gz`). */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PassThrough, type Readable } from 'node:stream';
import { glob } from 'tinyglobby';
import { InputMissingError } from '../shared/errors.js';
import { splitGlob } from './glob-pattern.js';
import { isListedData, type InputObject, type InputSource } from './input-source.js';

export interface FileSourceOptions {
  /** Directory that relative paths and globs are resolved against. Default: `process.cwd()`. */
  cwd?: string;
}

function fileObject(path: string, size: number): InputObject {
  return { uri: path, size, open: () => openFile(path) };
}

/** A read stream whose "file vanished since it was listed" failure is an `InputMissingError`. */
function openFile(path: string): Readable {
  const file = createReadStream(path);
  const out = new PassThrough();
  file.once('error', (error: NodeJS.ErrnoException) => {
    out.destroy(error.code === 'ENOENT' ? new InputMissingError(`input file not found: ${path}`, { path }, error) : error);
  });
  out.once('close', () => file.destroy());
  file.pipe(out);
  return out;
}

async function statOrUndefined(path: string) {
  try {
    return await stat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    throw error;
  }
}

export function createFileSource(location: string, options: FileSourceOptions = {}): InputSource {
  const cwd = options.cwd ?? process.cwd();
  const path = location.startsWith('file:') ? fileURLToPath(location) : location;

  async function* listInputs(): AsyncGenerator<InputObject> {
    const full = isAbsolute(path) ? path : resolve(cwd, path);
    // A path that exists is that file or folder, even when its name reads as a glob ("users (1).csv",
    // "export [1].csv"): as a glob it would also take other files ("export 1.csv"), or miss itself.
    const { isGlob } = splitGlob(path);
    const literal = isGlob ? await statOrUndefined(full) : undefined;
    let files: string[];
    let root: string;
    if (isGlob && literal === undefined) {
      files = await glob(path, { cwd, absolute: true, onlyFiles: true, dot: false, expandDirectories: false });
      root = resolve(cwd, splitGlob(path).base);
    } else {
      const info = literal ?? (await statOrUndefined(full));
      if (!info) throw new InputMissingError(`input not found: ${location}`, { path: full });
      if (info.isFile()) {
        yield fileObject(full, info.size);
        return;
      }
      files = await glob('**/*', { cwd: full, absolute: true, onlyFiles: true, dot: false });
      root = full;
    }
    files = files.filter((file) => isListedData(relative(root, file).split(sep).join('/')));
    if (files.length === 0) throw new InputMissingError(`no input files match: ${location}`, { path: location, cwd });
    // Sorted so that runs (and resumes) see inputs in the same order.
    files.sort();
    for (const file of files) {
      const info = await statOrUndefined(file);
      if (!info) throw new InputMissingError(`input file not found: ${file}`, { path: file });
      yield fileObject(file, info.size);
    }
  }

  return { location, listInputs };
}
