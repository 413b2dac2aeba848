export { httpClient, localClient, type DocevalsClient, type EvaluationInfo, type HttpClientOptions, type LocalClientOptions } from './client.js';
export { runCli, CONFIG_FILE, type CliConfig } from './program.js';
export { EXIT, CliError } from './errors.js';
export { sniffMimeType } from './files.js';
