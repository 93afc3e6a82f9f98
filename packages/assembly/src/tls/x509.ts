/**
 * @peculiar/x509 (X.509 on WebCrypto, the same on Node, Bun and Deno), loaded only when TLS is configured. It resolves its
 * parts through tsyringe, which needs a Reflect polyfill first.
 */
export async function loadX509(): Promise<typeof import('@peculiar/x509')> {
  await import('reflect-metadata');
  return import('@peculiar/x509');
}
