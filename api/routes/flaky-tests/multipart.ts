/**
 * Reads a multipart upload part by part. Each JUnit file part is piped straight into the streaming
 * parser (in-thread or the worker pool, see JunitParser) — the XML is never held whole, and what
 * stays in memory is the bounded parse result. Form
 * fields are collected as text; a `codeowners` file part is read as text (bounded).
 *
 * Limits: at most 20 MiB of file data in total (413, the same sentence as an oversized JSON body),
 * MAX_FILES files, and busboy's own part/field limits. On any refusal the rest of the body is drained
 * so the connection stays usable and the client gets its answer.
 */
import type { FastifyRequest } from 'fastify';
import { type JunitParser, type ParsedJunitFile } from '../../../flaky/junit';
import { badRequest } from '../../errors';
import { MAX_CODEOWNERS_BYTES, MAX_FILES, UPLOAD_LIMIT_BYTES } from './upload-schema';

export interface MultipartUpload {
  readonly fields: Map<string, string>;
  readonly files: ParsedJunitFile[];
}

export function tooLarge(): Error {
  return Object.assign(new Error('The request body is larger than the 20 MiB limit.'), {
    statusCode: 413,
    code: 'FST_ERR_CTP_BODY_TOO_LARGE',
  });
}

export async function readMultipart(request: FastifyRequest, parser: JunitParser): Promise<MultipartUpload> {
  const fields = new Map<string, string>();
  const files: ParsedJunitFile[] = [];
  let total = 0;
  async function* counted(stream: AsyncIterable<Buffer>, limit: number): AsyncGenerator<Buffer> {
    for await (const chunk of stream) {
      total += chunk.length;
      if (total > limit) throw tooLarge();
      yield chunk;
    }
  }
  // Without a boundary the multipart parser cannot even start; say so instead of failing inside it.
  if (!/;\s*boundary="?[^\s";]/i.test(request.headers['content-type'] ?? '')) {
    throw badRequest('The content type multipart/form-data needs a boundary parameter.');
  }
  try {
    const parts = request.parts({
      limits: {
        fileSize: UPLOAD_LIMIT_BYTES + 1,
        files: MAX_FILES + 1,
        fields: 50,
        fieldSize: MAX_CODEOWNERS_BYTES,
      },
    });
    for await (const part of parts) {
      if (part.type === 'field') {
        if (part.valueTruncated) throw badRequest(`Field '${part.fieldname}' is too long.`);
        fields.set(part.fieldname, typeof part.value === 'string' ? part.value : JSON.stringify(part.value));
        continue;
      }
      if (part.fieldname === 'codeowners') {
        const chunks: Buffer[] = [];
        for await (const chunk of counted(part.file, UPLOAD_LIMIT_BYTES)) chunks.push(chunk);
        const content = Buffer.concat(chunks);
        if (content.length > MAX_CODEOWNERS_BYTES)
          throw badRequest('The codeowners file is larger than 1 MiB.');
        fields.set('codeowners', content.toString('utf8'));
        continue;
      }
      if (files.length >= MAX_FILES) throw badRequest(`The upload has more than ${MAX_FILES} files.`);
      const fileName = part.filename || part.fieldname || `file-${files.length + 1}`;
      files.push(await parser.parse(counted(part.file, UPLOAD_LIMIT_BYTES), { fileName }));
    }
  } catch (err) {
    // Stop reading parts and discard whatever the client is still sending.
    request.raw.unpipe();
    request.raw.resume();
    // The multipart parser's own errors are about the client's body, not about us.
    if (
      err instanceof Error &&
      /^(Multipart|Malformed|Unexpected end of (form|multipart data))/i.test(err.message)
    ) {
      throw badRequest(`The multipart body is malformed: ${err.message.replace(/\.$/, '')}.`);
    }
    throw err;
  }
  return { fields, files };
}
