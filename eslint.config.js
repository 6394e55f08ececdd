// Folder boundaries from docs/architecture.md, enforced with no-restricted-imports.
// cli → pipeline → {sources, formats, transform, api, sinks} → {wire, shared}; sandbox → {wire, shared}.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const layer = (folder, forbidden, extra = []) => ({
  files: [`src/${folder}/**/*.ts`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          ...forbidden.map((f) => ({
            group: [`**/${f}/*`, `**/${f}`],
            message: `src/${folder} may not import src/${f} (see docs/architecture.md)`,
          })),
          ...extra,
        ],
      },
    ],
  },
});

const onlyIn = (pkg, allowedFolder) => ({
  group: [pkg, `${pkg}/*`],
  message: `${pkg} is used only in src/${allowedFolder} (one SDK, one place)`,
});

const stages = ['sources', 'formats', 'transform', 'api', 'sinks'];

export default tseslint.config(
  { ignores: ['dist/**', 'dist-bench/**', 'node_modules/**', 'coverage/**', 'bench/.work/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  { files: ['**/*.mjs', '**/*.js'], languageOptions: { globals: globals.node } },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  layer('shared', ['cli', 'pipeline', 'sandbox', 'config', 'wire', ...stages]),
  layer('wire', ['cli', 'pipeline', 'sandbox', 'config', ...stages]),
  ...stages.map((s) =>
    layer(
      s,
      ['cli', 'pipeline', 'sandbox', ...stages.filter((o) => o !== s)],
      [
        ...(s === 'api' ? [] : [onlyIn('undici', 'api')]),
        ...(s === 'sources' || s === 'sinks' ? [] : [onlyIn('@aws-sdk', 'sources and src/sinks')]),
        ...(s === 'formats' ? [] : [onlyIn('csv-parse', 'formats')]),
      ],
    ),
  ),
  layer('pipeline', ['cli', 'sandbox']),
  layer('config', ['cli', 'pipeline', 'sandbox', 'api', 'sources', 'sinks']),
  // The sandbox shares only the wire schemas with the client.
  {
    files: ['src/sandbox/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...['cli', 'pipeline', 'config', ...stages].map((f) => ({
              group: [`**/${f}/*`, `**/${f}`],
              message: `src/sandbox may not import src/${f}: it shares only src/wire and src/shared with the rest`,
            })),
          ],
        },
      ],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', 'fixtures/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
);
