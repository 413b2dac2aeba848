import { packageBuild } from '../../tsup.base.js';

// Only the handler, as an ES module (it finds the app next to itself through import.meta.url). The app itself is
// built by Vite into dist/app: `clean: false` keeps it.
export default packageBuild({ format: ['esm'], clean: false });
