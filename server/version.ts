/** The node's version, as package.json says (bundled into the desktop build by Vite). */
import pkg from '../package.json' with { type: 'json' };

export const NODE_VERSION: string = pkg.version;
