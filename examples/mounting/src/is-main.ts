/**
 * True when `moduleUrl` is the script node was started with (`tsx src/express.ts`), false when it is imported (the
 * tests import the app factories without starting a server).
 *
 * @example
 * if (isMain(import.meta.url)) app.listen(3000);
 */
export function isMain(moduleUrl: string): boolean {
  return process.argv[1] !== undefined && new URL(moduleUrl).pathname === new URL(`file://${process.argv[1]}`).pathname;
}
