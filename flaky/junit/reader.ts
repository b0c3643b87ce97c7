/**
 * Walks an XML text stream with saxes and reports elements and text to a handler.
 *
 * Security rule: a DOCTYPE is refused, never parsed. The prolog (everything before the first
 * element) is scanned as it streams in, so a DOCTYPE is refused as soon as it starts rather than
 * after saxes has buffered a possibly huge internal subset; saxes' own `doctype` event is the
 * second line of defence. Without a DOCTYPE only the five predefined entities and character
 * references exist, and saxes rejects any other `&name;` as an undefined entity.
 *
 * Every saxes error becomes a JunitParseError naming the file, line and column.
 */
import { SaxesParser } from 'saxes';
import { JunitParseError } from './errors';

export interface XmlHandler {
  open(name: string, attributes: Readonly<Record<string, string>>): void;
  close(name: string): void;
  text(text: string): void;
}

export async function walkXml(
  chunks: AsyncIterable<string>,
  fileName: string,
  handler: XmlHandler,
): Promise<void> {
  const parser = new SaxesParser<{ xmlns: false; position: true }>({ xmlns: false, position: true });
  const prolog = new PrologGuard(fileName);

  parser.on('doctype', () => {
    throw new JunitParseError(fileName, { kind: 'doctype' });
  });
  parser.on('error', (error) => {
    throw prolog.sawDoctype ? new JunitParseError(fileName, { kind: 'doctype' }) : malformed(fileName, error);
  });
  parser.on('opentag', (tag) => handler.open(tag.name, tag.attributes));
  parser.on('closetag', (tag) => handler.close(tag.name));
  parser.on('text', (text) => handler.text(text));
  parser.on('cdata', (text) => handler.text(text));

  for await (const chunk of chunks) {
    prolog.inspect(chunk);
    parser.write(chunk);
  }
  parser.close();
}

/** Looks for `<!DOCTYPE` before the first element, across chunk boundaries. */
class PrologGuard {
  sawDoctype = false;
  private done = false;
  private carry = '';

  constructor(private readonly fileName: string) {}

  inspect(chunk: string): void {
    if (this.done) return;
    const text = this.carry + chunk;
    const elementAt = text.search(/<[^?!]/);
    const prolog = elementAt === -1 ? text : text.slice(0, elementAt);
    if (/<!DOCTYPE/i.test(prolog)) {
      this.sawDoctype = true;
      throw new JunitParseError(this.fileName, { kind: 'doctype' });
    }
    if (elementAt !== -1) this.done = true;
    // '<!DOCTYPE' is 9 characters: keeping 8 catches one split across two chunks.
    this.carry = text.slice(-8);
  }
}

function malformed(fileName: string, error: Error): JunitParseError {
  const match = /^(\d+):(\d+): (.*)$/s.exec(error.message);
  if (!match) return new JunitParseError(fileName, { kind: 'malformed', detail: error.message });
  return new JunitParseError(fileName, {
    kind: 'malformed',
    line: Number(match[1]),
    column: Number(match[2]),
    detail: match[3] ?? error.message,
  });
}
