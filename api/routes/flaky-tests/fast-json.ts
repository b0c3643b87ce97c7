/**
 * The serializer of the hot read routes (list and detail pages): plain JSON.stringify. Their bodies
 * are built by wire.ts from typed records; the zod response schemas still describe them in the
 * OpenAPI document, and the tests check every response against those schemas. Skipping the
 * per-response zod pass saved about 2 ms of API CPU per 100-test page in profiles (bench/README.md).
 */
export const plainJson = { serializerCompiler: () => (data: unknown) => JSON.stringify(data) };
