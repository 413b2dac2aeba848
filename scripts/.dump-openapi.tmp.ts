import { createOpenApiDocument } from '@docevals/rest';
const canon = (v: unknown): unknown => Array.isArray(v) ? v.map(canon) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a < b ? -1 : 1).map(([k, x]) => [k, canon(x)])) : v;
process.stdout.write(JSON.stringify(canon(createOpenApiDocument()), null, 1));
