import { packageBuild } from '../../tsup.base.js';

// Only the handler: the app itself is built by Vite into dist/app (`clean: false` keeps it).
export default packageBuild({ clean: false });
