import { runExample } from './example.js';

await runExample();
