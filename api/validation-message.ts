/**
 * Turns zod issues into the plain sentences the API answers with: one per problem, naming the field
 * (as a dotted path inside the body or query) and the problem, never echoing the offending value back.
 * A request with several problems hears of all of them at once (at most MAX_PROBLEMS_LISTED sentences,
 * then how many more), so a client fixes them in one try.
 */
import type { z } from 'zod';

type Issue = z.core.$ZodIssue;

export function fieldPath(path: readonly PropertyKey[]): string {
  return path
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`))
    .join('');
}

function describeExpected(expected: string): string {
  switch (expected) {
    case 'object':
      return 'an object';
    case 'array':
      return 'an array';
    case 'int':
      return 'an integer';
    default:
      return `a ${expected}`;
  }
}

function bound(issue: Issue & { code: 'too_small' | 'too_big' }): string {
  const small = issue.code === 'too_small';
  const limit = String(issue.code === 'too_small' ? issue.minimum : issue.maximum);
  switch (issue.origin) {
    case 'string':
      return `must be ${small ? 'at least' : 'at most'} ${limit} characters long`;
    case 'array':
    case 'set':
      return `must have ${small ? 'at least' : 'at most'} ${limit} items`;
    default:
      return `must be ${small ? 'at least' : 'at most'} ${limit}`;
  }
}

function isCustomMessage(message: string): boolean {
  return /^(must|is|has|may|cannot|should) /.test(message);
}

export function describeIssue(
  issue: Issue,
  where: 'body' | 'querystring' | 'params' | 'headers' = 'body',
): string {
  const name = fieldPath(issue.path);
  if (name === '' && issue.code === 'invalid_type') {
    return where === 'body' ? 'The request body must be a JSON object.' : `The ${where} must be an object.`;
  }
  const field = where === 'headers' ? `Header '${name}'` : `Field '${name}'`;
  // zod issues carry no input by default; its own wording says when the value was missing.
  if (issue.code === 'invalid_type' && / received undefined$/.test(issue.message))
    return `${field} is required.`;
  // Schemas word their own messages as a predicate ("must be a number or a numeric string").
  if (isCustomMessage(issue.message)) return `${field} ${issue.message.replace(/\.$/, '')}.`;
  switch (issue.code) {
    case 'invalid_type':
      return `${field} must be ${describeExpected(issue.expected)}.`;
    case 'too_small':
    case 'too_big':
      return `${field} ${bound(issue)}.`;
    case 'invalid_value':
      return `${field} must be one of: ${issue.values.map(String).join(', ')}.`;
    case 'unrecognized_keys':
      return `${name ? field : 'The request'} has unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys
        .map((k) => `'${k}'`)
        .join(', ')}.`;
    case 'invalid_format':
      return `${field} must be a valid ${issue.format}.`;
    case 'not_multiple_of':
      return `${field} must be a multiple of ${String(issue.divisor)}.`;
    case 'invalid_union':
    case 'invalid_key':
    case 'invalid_element':
    case 'custom':
      return `${field} ${issue.message.replace(/\.$/, '')}.`;
  }
}

export const MAX_PROBLEMS_LISTED = 10;

/**
 * Every problem of a request, one sentence each, joined by spaces. A field with several problems (an
 * empty string is both too short and empty) is named once, by its first problem.
 */
export function describeIssues(
  issues: readonly Issue[],
  where: 'body' | 'querystring' | 'params' | 'headers' = 'body',
): string {
  const byField = new Map<string, Issue>();
  for (const issue of issues) {
    const field = fieldPath(issue.path);
    if (!byField.has(field)) byField.set(field, issue);
  }
  const sentences = [...byField.values()].map((i) => describeIssue(i, where));
  if (sentences.length === 0) return 'The request is invalid.';
  const listed = sentences.slice(0, MAX_PROBLEMS_LISTED);
  const more = sentences.length - listed.length;
  return [...listed, ...(more > 0 ? [`${more} more problem${more > 1 ? 's' : ''} not listed.`] : [])].join(
    ' ',
  );
}
