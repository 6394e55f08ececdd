import { resolvePipelineConfig } from './src/index.js';
const base = (m: string, extra = '') => `name: p
stages:
  users:
    source: { path: u.csv }
    key: id
${extra}    mapping:
      name: n
      displayName: d
      isGuest: { const: false }
${m}
`;
for (const [label, m, extra] of [
  ['type datetime', '      properties: { at: { field: a, type: datetime } }'],
  ['equals list', '      properties: { at: { field: a, when: { field: b, equals: [x, y] } } }'],
  ['split empty', '      properties: { at: { field: a, split: "" } }'],
  ['matches slashes', '', '    skip: [{ field: a, matches: "/^bot/i" }]\n'],
  ['in empty', '', '    skip: [{ field: a, in: [] }]\n'],
  ['ref on users', '      properties: { boss: { field: a, ref: user } }'],
  ['map empty', '      properties: { t: { field: a, map: {} } }'],
  ['field empty', '      properties: { t: { field: "" } }'],
  ['field list empty', '      properties: { t: { field: [] } }'],
  ['template no fields', '      properties: { t: { template: "x" } }'],
  ['default with when', '      properties: { t: { field: a, default: 1, when: { field: b, empty: true } } }'],
  ['trim on number', '      properties: { t: { field: a, trim: yes } }'],
] as const) {
  const r = resolvePipelineConfig(base(m, extra ?? ''), { env: {}, path: '/tmp/p.yaml' });
  console.log(label, '=>', r.ok ? 'OK' : r.errors.map((e) => `${e.line}:${e.path}: ${e.message}`).join(' | '));
}
