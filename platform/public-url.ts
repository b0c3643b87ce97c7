/**
 * The base of every link railyard hands out (webhook payloads, flaky-test links, the OpenAPI
 * document), and the API's default listen address it falls back to.
 *
 * Rules:
 * - RAILYARD_PUBLIC_URL wins wherever it is set. Without it the API uses its own listen address; the
 *   worker, which does not know where the API listens, uses the API's default one. So a deployment
 *   whose API listens elsewhere sets RAILYARD_PUBLIC_URL for both processes, or their links differ.
 * - The defaults live only here: api/config.ts takes its RAILYARD_API_HOST / RAILYARD_API_PORT
 *   defaults from them, and scripts and benches build the URL of the API they start with `apiUrl`.
 */
export const DEFAULT_API_HOST = '127.0.0.1';
export const DEFAULT_API_PORT = 8080;

export interface ListenAddress {
  host: string;
  port: number;
}

/** The http URL of an API listening at `address` (each part defaulting to the API's default). */
export function apiUrl(address: Partial<ListenAddress> = {}): string {
  return `http://${address.host ?? DEFAULT_API_HOST}:${address.port ?? DEFAULT_API_PORT}`;
}

/** RAILYARD_PUBLIC_URL when configured, else the URL of the API's listen address. */
export function publicUrlOf(configured: string | undefined, listen?: ListenAddress): string {
  return configured ?? apiUrl(listen);
}
