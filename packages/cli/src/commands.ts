// What the commands run, loaded only when one runs (program.ts imports it lazily): `docevals --help` and argument
// errors never load the core, the adapters or the HTTP client, so they answer in the time node takes to start.
export { httpClient, localClient } from './client.js';
export { compareIterations, formatCompare, formatGateGithub, formatGateJunit, formatGateText, gate, writeOrPrint } from './commands/analyze.js';
export { formatImportReport, importFolder } from './commands/import.js';
export { pickIteration, resolveEvaluation } from './commands/resolve.js';
export { formatRunReport, runExitCode, runIteration } from './commands/run.js';
export { formatSecrets, formatSet, removeSecret, secretName, setSecret } from './commands/secrets.js';
